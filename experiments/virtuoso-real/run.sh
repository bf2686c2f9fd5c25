#!/usr/bin/env bash
# Virtuoso in the real runtime: bifrost-perf write_bw --transport virtuoso over K = 1, 2, 4
# paths of the namespace testbed, each path its own veth pair with its own tbf
# (scripts/testbed.sh --paths K --path-rate R): R = 500 Mbit/s (the issue's setup) and 200
# Mbit/s (K x R within what this host's soft NICs move), and without tbf ("none": the host's
# own ceiling). Two splits: probed (the library's 512 KiB probe per path, then eq. (1)) and
# equal (--virtuoso_probe 0). Writes results.csv (goodput and the bytes each path veth sent)
# and real.png here, and prints the issue's checks per rate: goodput(2) >= 1.8 x goodput(1),
# every veth >= 0.8 / K of the bytes.
#
#   sudo experiments/virtuoso-real/run.sh                     # full run (about 6 minutes)
#   RATES=500 PATHS="1 2" REPS=1 SECONDS_PER_RUN=3 sudo experiments/virtuoso-real/run.sh
set -euo pipefail
source "$(dirname "$0")/../common.sh"
[ "$(id -u)" -eq 0 ] || { echo "needs root (network namespaces)" >&2; exit 77; }
paths_list="${PATHS:-1 2 4}"
reps="${REPS:-3}"
duration="${SECONDS_PER_RUN:-4}"
rates="${RATES:-500 200 none}"

cd "$root"
CMAKE_BUILD_PARALLEL_LEVEL=1 build_tools bifrost-perf
perf="$build/tools/bifrost-perf"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
out="$here/results.csv"
echo "rate_mbit,split,paths,rep,goodput_gbps,path_bytes,min_share,capacities_gbps,retransmissions" >"$out"

for rate in $rates; do
for k in $paths_list; do
  for split in probed equal; do
    probe=1
    [ "$split" = equal ] && probe=0
    # Without tbf only the equal split, once: the host's ceiling.
    [ "$rate" = none ] && [ "$split" = probed ] && continue
    shaping=(--path-rate "${rate}mbit")
    [ "$rate" = none ] && shaping=()
    for rep in $(seq 1 "$( [ "$rate" = none ] && echo 1 || echo "$reps")"); do
      flags="write_bw --transport virtuoso --paths $k --virtuoso_probe $probe -s 65536 -t 16 --timeout 20"
      scripts/testbed.sh --paths "$k" "${shaping[@]}" --counters "$tmp/counters.json" \
        --b "$perf $flags -B \$BF_B_IP > $tmp/server.txt 2>&1" \
        --a "$perf $flags \$BF_B_IP -D $duration --report_gbits --out_json $tmp/client.json > $tmp/client.txt 2>&1" \
        >"$tmp/testbed.txt" || { cat "$tmp"/*.txt >&2; exit 1; }
      /usr/bin/python3 - "$tmp" "$rate" "$split" "$k" "$rep" >>"$out" <<'PY'
import json, sys
d, rate, split, k, rep = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
client = json.load(open(f"{d}/client.json"))
sent = json.load(open(f"{d}/counters.json"))["a"]["path_tx_bytes"]
row = client["results"][0]
caps = [p["capacity_gbps"] for p in client["counters"]["virtuoso"]["connections"][0]["paths"]]
share = min(sent) / sum(sent)
print(f"{rate},{split},{k},{rep},{row['bw_avg_Gbps']:.4f},{' '.join(map(str, sent))},{share:.4f},"
      f"{' '.join(f'{c:.3f}' for c in caps)},{client['counters']['retransmissions']}")
PY
      tail -n 1 "$out"
    done
  done
done
done

/usr/bin/python3 - "$out" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for rate in dict.fromkeys(r["rate_mbit"] for r in rows):
    for split in ("probed", "equal"):
        mean = {}
        for k in sorted({int(r["paths"]) for r in rows}):
            rs = [r for r in rows
                  if r["rate_mbit"] == rate and r["split"] == split and int(r["paths"]) == k]
            if not rs:
                continue
            mean[k] = statistics.mean(float(r["goodput_gbps"]) for r in rs)
            worst = min(float(r["min_share"]) for r in rs)
            ideal = f"{mean[k] / (k * float(rate) / 1000):.0%} of {k} x {rate} Mbit/s, " \
                if rate != "none" else ""
            print(f"{rate:>4} {split:6} K={k}: goodput {mean[k]:.3f} Gb/s ({ideal}"
                  f"smallest veth share {worst:.3f}: "
                  f"{'ok' if worst >= 0.8 / k else 'FAIL'} against {0.8 / k:.3f})")
        if 1 in mean and 2 in mean:
            ratio = mean[2] / mean[1]
            print(f"{rate:>4} {split:6} goodput(2) / goodput(1) = {ratio:.2f}: "
                  f"{'ok' if ratio >= 1.8 else 'FAIL'} against 1.8")
PY
/usr/bin/python3 "$here/plot.py" "$out" "$here/real.png"
