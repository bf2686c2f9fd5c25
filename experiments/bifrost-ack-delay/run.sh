#!/usr/bin/env bash
# Fig. 16 (A.4) of the Bifröst paper: the 99th percentile of the ACK delay T3' - T2 (the
# receiver's wait from a WQE's arrival to posting its ACK) and of the local delay (the sender's
# wait from the ACK's arrival T4 to processing it) against the ACK coalescing count, with the
# eq. (1) RTT samples beside them. The runs are Fig. 4(a)'s (experiments/bifrost-ack-coalescing:
# real runtime on loopback, 128 B RPCs at depth 8, --config paper) for the counts 1 (immediate),
# 4, 8, 16 and 32 at the 120 us timer:
#   results.csv                 8 connections (the headline, Fig. 4(a)'s), plus the product default
#   results_one_connection.csv  1 connection (sensitivity: little loop lag)
# and delays.png here.
#
#   experiments/bifrost-ack-delay/run.sh        # 3 reps x 11 runs x 4 s: about 3.5 min
#   REPS=1 SECONDS_PER_RUN=2 experiments/bifrost-ack-delay/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
runner="$here/../bifrost-ack-coalescing/run.sh"
counts="immediate count4 count8 count16 paper"
CONFIGS="$counts default" OUT="$here/results.csv" PLOT=0 "$runner"
QPS=1 CONFIGS="$counts" OUT="$here/results_one_connection.csv" PLOT=0 "$runner"
/usr/bin/python3 "$here/plot.py" "$here/results.csv" "$here/results_one_connection.csv" \
  "$here/delays.png"
