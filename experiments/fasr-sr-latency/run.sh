#!/usr/bin/env bash
# The SR latency model of the FaSR paper's Figs. 9(a), 9(c) and 2 (rnic/recovery/sr_latency.h):
# builds bifrost-sr-latency, writes actions.csv, expectation.csv and stalls.csv next to this
# script, then sr_latency.png (plot.py also reads the fast-path shares measured by
# ../fasr-fast-path, ../fasr-paths-by-traffic and ../fasr-pool-usage). A few seconds once built.
#
#   experiments/fasr-sr-latency/run.sh
set -euo pipefail
source "$(dirname "$0")/../common.sh"
cd "$root"
build_tools bifrost-sr-latency
"$build/tools/bifrost-sr-latency" --out-dir "$here"
/usr/bin/python3 "$here/plot.py" "$here"
echo "results in $here/{actions,expectation,stalls}.csv, sr_latency.png" >&2
