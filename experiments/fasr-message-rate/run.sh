#!/usr/bin/env bash
# The FaSR paper's Fig. 8(a) message-rate bound as a model (model.py: WQE fetch batch per PCIe
# round trip, and the line rate); writes results.csv and message_rate.png next to this script.
# model.py checks the paper's numbers before it writes anything. Under a second.
#
#   experiments/fasr-message-rate/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
/usr/bin/python3 "$here/model.py" "$here/results.csv"
/usr/bin/python3 "$here/plot.py" "$here"
echo "results in $here/results.csv, message_rate.png" >&2
