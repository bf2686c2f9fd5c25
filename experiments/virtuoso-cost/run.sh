#!/usr/bin/env bash
# Fig. 8 of the Virtuoso paper: Virtuoso's CPU cost against the number of paths and the message
# size. The paper measured CPU cycles; the simulator counts the work that costs them, per MB
# moved: library (MP_) calls, constituent WRs posted, CQEs taken from the shared CQ and
# completion-channel wake-ups. Writes results.csv and cost.png here.
#
#   experiments/virtuoso-cost/run.sh
#   PATHS=1,4 SIZES=65536,1048576 experiments/virtuoso-cost/run.sh   # quick look
set -euo pipefail
source "$(dirname "$0")/../common.sh"
tool_and_tmp bifrost-virtuoso-bench
"$tool" cost --paths "${PATHS:-1,2,4,6,8,10}" \
  --sizes "${SIZES:-4096,65536,1048576,16777216,67108864}" \
  --bytes-per-point "${BYTES_PER_POINT:-64000000}" >"$here/results.csv"
column -s, -t "$here/results.csv" >&2
/usr/bin/python3 "$here/plot.py" "$here/results.csv" "$here/cost.png"
