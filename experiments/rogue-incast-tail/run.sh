#!/usr/bin/env bash
# RoGUE's Fig. 14: the 10th-percentile per-flow throughput of N -> 1 incasts of 128 MB, over
# RC (RoGUE, RoCE without PFC, RoCE with DCQCN, DCTCP's algorithm) and UC (RoGUE, DCTCP's
# algorithm, plain UC RoCE), normalised to the fair share 10 Gb/s / N. Writes flows.csv (every
# flow of every run: throughput = 128 MB / FCT, 0 for a flow that failed or did not finish; for
# roce-uc's unfinished flows the goodput of their complete messages, below) and results.csv.
#
#   experiments/rogue-incast-tail/run.sh                       # every scheme and N (minutes)
#   SCHEMES="rogue-rc dctcp" NS="1 8" experiments/rogue-incast-tail/run.sh
set -euo pipefail
source "$(dirname "$0")/../common.sh"
build_sim
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# The paper's axis is on the figure only; 1..15 senders fit one 16-server ToR (section 4).
ns="${NS:-1 2 4 8 15}"
schemes="${SCHEMES:-rogue-rc roce roce-dcqcn dctcp rogue-uc roce-uc}"

echo "scheme,n,flow,gbps,finished" >"$here/flows.csv"
for scheme in $schemes; do
  pfc="" nic="" metrics=""
  case "$scheme" in
    rogue-rc) transport='kind = "rogue-rc"
literal_vegas = true' ;;
    rogue-uc) transport='kind = "rogue-uc"
literal_vegas = true' ;;
    roce) transport='kind = "rc"' ;;  # plain RC, no PFC: the NIC's go-back-N alone
    roce-dcqcn) transport='kind = "rc"' nic='dcqcn = true' ;;
    # Plain UC WRITEs of 64 KiB at line rate: a lost packet loses its message, nothing is sent
    # again. Goodput samples every millisecond give an unfinished flow's complete messages.
    roce-uc) transport='kind = "uc"' metrics='flow_throughput_interval = "1ms"' ;;
    dctcp) transport='kind = "bifrost-uc"
cc = "dctcp"' ;;
    *) echo "unknown scheme $scheme" >&2; exit 2 ;;
  esac
  for n in $ns; do
    # Twice the time the fair share needs, plus slack for slow start.
    duration="$(( (n * 128 * 8 * 2) / 10 + 100 ))ms"
    DURATION=$duration HOSTS=$((n + 1)) PFC=$pfc NIC=$nic TRANSPORT=$transport SENDERS=$n METRICS=$metrics \
      /usr/bin/python3 "$here/../fill_template.py" "$here/scenario.toml.in" "$tmp/run.toml"
    echo "== $scheme, N = $n ($duration)" >&2
    "$tool" run "$tmp/run.toml" --out "$tmp/out" --quiet >"$tmp/run.txt"
    /usr/bin/python3 - "$tmp/out" "$scheme" "$n" >>"$here/flows.csv" <<'PY'
import csv, os, sys
from collections import defaultdict
out, scheme, n = sys.argv[1:]
# With flow_throughput.csv (roce-uc): an unfinished flow's goodput is the bytes of its complete
# messages over the time its sender needed, which at line rate is its ideal FCT, or if later
# until the end of its last sample that delivered any (so the flows' goodputs cannot add up to
# more than the receiver's link).
delivered, last_end = defaultdict(int), {}
samples = os.path.join(out, "flow_throughput.csv")
if os.path.exists(samples):
    for s in csv.DictReader(open(samples)):
        if int(s["bytes"]) > 0:
            delivered[s["flow"]] += int(s["bytes"])
            last_end[s["flow"]] = int(s["end_ps"])
for row in csv.DictReader(open(os.path.join(out, "flows.csv"))):
    done = row["fct_ps"] != ""
    if done:
        gbps = int(row["size_bytes"]) * 8 / (int(row["fct_ps"]) / 1e12) / 1e9
    elif row["id"] in last_end:
        seconds = max(int(row["ideal_fct_ps"]), last_end[row["id"]] - int(row["start_ps"])) / 1e12
        gbps = delivered[row["id"]] * 8 / seconds / 1e9
    else:
        gbps = 0.0
    print(f"{scheme},{n},{row['id']},{gbps:.4f},{int(done)}")
PY
  done
done
/usr/bin/python3 "$here/summarise.py" "$here/flows.csv" >"$here/results.csv"
cat "$here/results.csv"
