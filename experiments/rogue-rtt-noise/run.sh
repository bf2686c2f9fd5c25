#!/usr/bin/env bash
# RoGUE's Fig. 8: aggregate throughput of an 8 -> 1 incast of 128 MiB RC flows against the
# noise x added to RTT samples (uniform on [0, x]). Writes results.csv and noise.png here.
#
#   experiments/rogue-rtt-noise/run.sh                # every point (about a minute)
#   NOISE="0 100" experiments/rogue-rtt-noise/run.sh  # a quick look
set -euo pipefail
source "$(dirname "$0")/../common.sh"
build_sim
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
noise_list="${NOISE:-0 25 50 75 100 200 400}"
echo "series,literal_vegas,seed,noise_us,aggregate_gbps,last_fct_ms,median_flow_gbps,min_flow_gbps" >"$here/results.csv"
# label literal seed: the paper's alpha/beta as written (two seeds), and our Linux reading.
for entry in "paper true 1" "paper true 2" "linux_vegas false 1"; do
  read -r label literal seed <<<"$entry"
  for x in $noise_list; do
    sed -e "s/@LITERAL@/$literal/" -e "s/@NOISE@/${x}us/" -e "s/@SEED@/$seed/" \
      "$here/scenario.toml.in" >"$tmp/s.toml"
    echo "== $label seed $seed, noise [0, $x] us" >&2
    "$tool" run "$tmp/s.toml" --out "$tmp/o" --quiet >/dev/null
    /usr/bin/python3 - "$tmp/o" "$label" "$literal" "$seed" "$x" >>"$here/results.csv" <<'PY'
import csv, statistics, sys
d, label, literal, seed, x = sys.argv[1:]
flows = list(csv.DictReader(open(f"{d}/flows.csv")))
start = min(int(f["start_ps"]) for f in flows)
end = max(int(f["finish_ps"]) for f in flows)
total = sum(int(f["size_bytes"]) for f in flows)
per_flow = [int(f["size_bytes"]) * 8 / (int(f["fct_ps"]) * 1e-12) / 1e9 for f in flows]
print(f"{label},{literal},{seed},{x},{total * 8 / ((end - start) * 1e-12) / 1e9:.3f},"
      f"{(end - start) * 1e-9:.1f},{statistics.median(per_flow):.3f},{min(per_flow):.3f}")
PY
  done
done
cat "$here/results.csv"
/usr/bin/python3 "$here/plot.py" "$here/results.csv" "$here/noise.png"
