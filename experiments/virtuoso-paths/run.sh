#!/usr/bin/env bash
# Figs. 5 and 6 of the Virtuoso paper: the FCT of one flow over K = 1, 2, 4, 6, 8, 10 paths of
# 1 Gb/s behind 10 Gb/s hosts, for several sizes; PFC on (the headline) and off (sensitivity).
# Writes results.csv (FCT(K) / FCT(1) beside 1 / K) and paths.png here.
#
#   experiments/virtuoso-paths/run.sh                          # full run
#   SIZES="100MB" PATHS="1 4" experiments/virtuoso-paths/run.sh  # quick look
set -euo pipefail
source "$(dirname "$0")/../common.sh"
paths_list="${PATHS:-1 2 4 6 8 10}"
sizes="${SIZES:-10MB 100MB 1GB}"
lossy_sizes="${LOSSY_SIZES:-10MB}"

cd "$root"
build_sim
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
out="$here/results.csv"
echo "mode,size,paths,fct_s,ratio,inverse_paths,ratio_error,drops,retransmitted" >"$out"

# One point: mode (pfc or lossy), size, K; prints "fct_s drops retransmitted".
point() {
  local mode=$1 size=$2 k=$3 pfc="" timeout=14
  if [ "$mode" = pfc ]; then pfc='[switch.pfc]'; else timeout=10; fi
  sed -e "s/@PATHS@/$k/g" -e "s/@SIZE@/$size/" -e "s/@PFC@/$pfc/" -e "s/@TIMEOUT@/$timeout/" \
    "$here/scenario.toml.in" >"$tmp/s.toml"
  "$tool" run "$tmp/s.toml" --out "$tmp/o" --quiet >"$tmp/stdout" 2>"$tmp/stderr" \
    || { cat "$tmp/stderr" >&2; exit 1; }
  /usr/bin/python3 - "$tmp/o" <<'PY'
import csv, json, sys
d = sys.argv[1]
flow = next(csv.DictReader(open(f"{d}/flows.csv")))
summary = json.load(open(f"{d}/summary.json"))
if not flow["fct_ps"]:
    sys.exit(f"the flow did not finish: {flow}")
print(int(flow["fct_ps"]) * 1e-12, summary["drops"]["total"], summary["nic"]["retransmitted"])
PY
}

run_mode() {
  local mode=$1 size_list=$2
  for size in $size_list; do
    local base=""
    for k in $paths_list; do
      echo "== $mode $size K=$k" >&2
      read -r fct drops retx < <(point "$mode" "$size" "$k")
      [ -z "$base" ] && base=$fct
      /usr/bin/python3 -c "
fct, base, k = $fct, $base, $k
ratio = fct / base
print(f'$mode,$size,{k},{fct:.6f},{ratio:.4f},{1 / k:.4f},{ratio * k - 1:+.4f},$drops,$retx')" >>"$out"
    done
  done
}

run_mode pfc "$sizes"
run_mode lossy "$lossy_sizes"
column -s, -t "$out" >&2
/usr/bin/python3 "$here/plot.py" "$out" "$here/paths.png"
