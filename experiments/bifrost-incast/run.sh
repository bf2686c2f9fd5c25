#!/usr/bin/env bash
# Fig. 9 of the Bifröst paper: N clients x 8 threads x I/O depth 8 x 32 KiB RPCs into one
# server on a lossy star (no PFC), minimum chunk (unit_size) 4 KiB vs 1 KiB: server goodput,
# server link throughput and switch drops against the incast ratio N x 64. Writes results.csv
# and incast.png here.
#
#   experiments/bifrost-incast/run.sh                  # full run (about 5 minutes)
#   CLIENTS="8 96" experiments/bifrost-incast/run.sh   # quick look
#   CC='kind = "swift"\nloss_gate = false' OUT=/tmp/x.csv experiments/bifrost-incast/run.sh
#     # a [transport.cc] table (TOML lines) for every point, results elsewhere
set -euo pipefail
source "$(dirname "$0")/../common.sh"
clients_list="${CLIENTS:-8 16 32 48 64 80 96}"
buffer="${BUFFER:-4MB}"

cd "$root"
export CMAKE_BUILD_PARALLEL_LEVEL=1  # a shared 2-core machine
build_tools bifrost-sim
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
out="${OUT:-$here/results.csv}"
echo "series,clients,ratio,unit,send_threshold,buffer,goodput_gbps,link_gbps,window_drops,drops,retransmitted_wqes,timeouts" >"$out"

# One point: clients, unit, send threshold, buffer, series label.
point() {
  local n=$1 unit=$2 threshold=$3 buf=$4 label=$5
  sed -e "s/@CLIENTS@/$n/" -e "s/@HOSTS@/$((n + 1))/" -e "s/@UNIT@/$unit/" \
    -e "s/@THRESHOLD@/$threshold/" -e "s/@BUFFER@/$buf/" "$here/scenario.toml.in" >"$tmp/s.toml"
  [ -z "${CC:-}" ] || printf '[transport.cc]\n%b\n' "$CC" >>"$tmp/s.toml"
  echo "== $label: $n clients ($((n * 64)):1)" >&2
  "$build/tools/bifrost-sim" run "$tmp/s.toml" --out "$tmp/o" --quiet >"$tmp/stdout" 2>"$tmp/stderr" \
    || { cat "$tmp/stderr" >&2; exit 1; }
  grep -E "^(closed loop|Bifr)" "$tmp/stdout" >&2 || true
  /usr/bin/python3 - "$tmp/o" "$tmp/stdout" "$label" "$n" "$unit" "$threshold" "$buf" >>"$out" <<'PY'
import csv, json, re, sys
d, stdout, label, n, unit, threshold, buf = sys.argv[1:]
loop = next(csv.DictReader(open(f"{d}/closed_loop.csv")))
summary = json.load(open(f"{d}/summary.json"))
start, end = int(loop["window_start_ps"]), int(loop["window_end_ps"])
# The server's link (switch -> h0) in the goodput window: every byte, retransmissions included.
rows = [r for r in csv.DictReader(open(f"{d}/throughput.csv"))
        if r["link"] == "switch->h0" and int(r["start_ps"]) >= start and int(r["end_ps"]) <= end]
link = sum(int(r["bytes"]) for r in rows) * 8 / ((end - start) * 1e-12) / 1e9
text = open(stdout).read()
retx = re.search(r"(\d+) WQEs retransmitted", text).group(1)
timeouts = re.search(r"(\d+) timeouts, \d+ tail probes", text).group(1)
print(f"{label},{n},{loop['outstanding']},{unit},{threshold},{buf},{float(loop['goodput_gbps']):.2f},"
      f"{link:.2f},{loop['window_drops']},{summary['drops']['total']},{retx},{timeouts}")
PY
}

for n in $clients_list; do
  point "$n" 4KiB 16KiB "$buffer" unit4k
  point "$n" 1KiB 16KiB "$buffer" unit1k
done
# Sensitivity: the largest incast with the default 12 MB buffer, and with the default 32 KiB
# send threshold (the RPC goes as one SEND, so the unit size does not apply).
last="${clients_list##* }"
point "$last" 4KiB 16KiB 12MB unit4k_12MB
point "$last" 1KiB 16KiB 12MB unit1k_12MB
point "$last" 4KiB 32KiB "$buffer" send_4k
column -s, -t "$out" >&2
[ -n "${OUT:-}" ] || /usr/bin/python3 "$here/plot.py" "$out" "$here/incast.png"
