#!/usr/bin/env bash
# RoGUE's Fig. 9: median throughput of two RC flows into one host under every-N-th packet loss,
# with 64 KB and 1 KB application verbs. Writes results.csv and loss.png here.
#
#   experiments/rogue-loss/run.sh                     # every point (about 2 minutes)
#   EVERY="0 4096" experiments/rogue-loss/run.sh      # a quick look
set -euo pipefail
source "$(dirname "$0")/../common.sh"
build_sim
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
every_list="${EVERY:-0 65536 16384 4096 1024 256}"
# label verb flow-size: the paper's 128 MB with 64 KB verbs; 1 KB verbs at 32 MiB (a host may
# have 65,536 verbs outstanding in the simulator: 128 MiB would be 131,072), and 64 KB verbs at
# 32 MiB beside them, so the two verb sizes are compared on equal flows.
series=("big_128MiB 64KiB 128MiB" "small_32MiB 1KiB 32MiB" "big_32MiB 64KiB 32MiB")
echo "series,verb,flow_bytes,drop_every,loss_rate,flow,fct_us,goodput_gbps,drops,nic_retransmitted,nic_timeouts,shadow_switches" >"$here/flows.csv"
for entry in "${series[@]}"; do
  read -r label verb size <<<"$entry"
  for every in $every_list; do
    drop=""
    [ "$every" != 0 ] && drop="host_drop_every = $every"
    sed -e "s/@DROP@/$drop/" -e "s/@VERB@/$verb/" -e "s/@SIZE@/$size/" \
      "$here/scenario.toml.in" >"$tmp/s.toml"
    echo "== $label, every $every" >&2
    "$tool" run "$tmp/s.toml" --out "$tmp/o" >"$tmp/stdout"
    /usr/bin/python3 - "$tmp/o" "$tmp/stdout" "$label" "$verb" "$size" "$every" \
      >>"$here/flows.csv" <<'PY'
import csv, json, re, sys
d, stdout, label, verb, size, every = sys.argv[1:]
summary = json.load(open(f"{d}/summary.json"))
rate = 0 if every == "0" else 1 / int(every)
nic = summary.get("nic", {})
# The run's transport line: "... N failovers ..." (for RoGUE: shadow QPs that took over).
failovers = re.search(r"(\d+) failovers", open(stdout).read())
for r in csv.DictReader(open(f"{d}/flows.csv")):
    fct_us = int(r["fct_ps"]) / 1e6
    goodput = int(r["size_bytes"]) * 8 / (fct_us * 1e-6) / 1e9
    print(f"{label},{verb},{r['size_bytes']},{every},{rate:.6g},{r['id']},{fct_us:.1f},"
          f"{goodput:.4f},{summary['drops']['total']},{nic['retransmitted']},{nic['timeouts']},"
          f"{failovers.group(1) if failovers else ''}")
PY
  done
done
/usr/bin/python3 "$here/summarise.py" "$here/flows.csv" >"$here/results.csv"
cat "$here/results.csv"
/usr/bin/python3 "$here/plot.py" "$here/results.csv" "$here/loss.png"
