#!/usr/bin/env bash
# Fig. 7 of the RoGUE paper (§5.3), verb completion time: RC READs of 64 B .. 1 MB one at a time
# on an uncongested network, RoGUE against RoCE (a bare RC QP, no software congestion control),
# the mean completion time per size and the ratio RoGUE / RoCE beside the paper's 1.0 at 64 B
# (4 us each) and 1.10 at 1 MB (1040 us against 944 us).
# Simulation (tools/bifrost-rogue-verbs: two ConnectX-3 Pro soft RNICs on a 10 Gb/s wire, MTU
# 2048). Every row group of results.csv is one configuration:
#   headline        the wire's delay set so that RoCE's 64 B READ takes the paper's 4 us; RoGUE
#                   with its host CPU model off (its default) and on with the paper's costs
#                   (5 us a signal of its own, 1 us a NIC clock read; rogue_config.h kPaper*)
#   wire_0.925us    the delay of experiments/rogue-rtt-accuracy (its WRITE(0) oracle reads 2 us)
#   signal_sweep    1 MB only: the signal cost that RoGUE's two enqueued batches no longer hide
#   one_batch       1 MB only, one batch in flight at a time (min_batches = 1, the window capped
#                   at 32 KiB, below a batch): each batch's clock read and signal on the
#                   critical path, as the paper's 16 x 6 us = 96 us needs
# and, as root, the real runtime's rows (real.sh: bifrost-perf read_lat on the namespace testbed).
#   experiments/rogue-verb-completion/run.sh          # about a minute; with real.sh about two
#   REAL=0 experiments/rogue-verb-completion/run.sh   # the simulator only
set -euo pipefail
source "$(dirname "$0")/../common.sh"
export CMAKE_BUILD_PARALLEL_LEVEL=1
tool_and_tmp bifrost-rogue-verbs
out="$here/results.csv"
sizes=64,256,1024,4096,16384,65536,262144,1048576
measured="${MEASURED:-300}"
rm -f "$out"

# RoCE's 64 B READ at zero wire delay; the delay that brings it to the paper's 4 us.
"$tool" --scheme roce --sizes 64 --delay-us 0 --measured 50 --csv "$tmp/calibrate.csv" >/dev/null
delay=$(/usr/bin/python3 -c "import csv; r = next(csv.DictReader(open('$tmp/calibrate.csv')));
print(round((4.0 - float(r['mean_us'])) / 2, 4))")
echo "one-way delay for RoCE's 64 B READ at 4 us: $delay us"

run() {  # label delay flags...
  local label=$1 d=$2
  shift 2
  echo "== $label: $*"
  "$tool" --delay-us "$d" --measured "$measured" --label "$label" --csv "$out" "$@"
}
for wire in "headline $delay" "wire_0.925us 0.925"; do
  set -- $wire
  run "$1" "$2" --scheme roce --sizes "$sizes"
  run "$1" "$2" --scheme rogue --sizes "$sizes"
  run "$1" "$2" --scheme rogue --sizes "$sizes" --signal-cost-us 5 --clock-read-cost-us 1
done
for cost in 5 20 40 50 60 80 100; do
  run "signal_sweep_${cost}us" "$delay" --scheme rogue --sizes 1048576 --signal-cost-us "$cost" \
    --clock-read-cost-us 1
done
serial="--sizes 1048576 --min-batches 1 --max-window-bytes 32768"
run one_batch "$delay" --scheme rogue $serial
run one_batch "$delay" --scheme rogue $serial --signal-cost-us 5 --clock-read-cost-us 1

# The real runtime's rows (root only): bifrost-perf over the namespace testbed.
if [ "$(id -u)" -eq 0 ] && [ "${REAL:-1}" = 1 ]; then "$here/real.sh"; fi

/usr/bin/python3 "$here/plot.py" "$out" "$here/verb_completion.png"
