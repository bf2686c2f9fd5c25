#!/usr/bin/env bash
# Fig. 7 of the Virtuoso paper: 256 KB mice on one path beside a continuous elephant that is
# either on that same single path or split over 10 paths (1 Gb/s each, hosts at 10 Gb/s, PFC
# on). The paper sends a mouse every 2 s; we send one every 100 ms (scaled 20x, see README.md).
# Writes results.csv (mouse FCT p50 / p99 per case), mice.csv (every mouse) and mice.png here.
#
#   experiments/virtuoso-mice/run.sh
#   MICE=10 experiments/virtuoso-mice/run.sh   # quick look
set -euo pipefail
source "$(dirname "$0")/../common.sh"
tool_and_tmp bifrost-virtuoso-bench
"$tool" mice --paths "${PATHS:-10}" --mice "${MICE:-50}" --interval-ms "${INTERVAL_MS:-100}" \
  >"$here/mice.csv"
/usr/bin/python3 - "$here/mice.csv" "$here/results.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["case", "elephant_paths", "mice", "fct_p50_us", "fct_p99_us", "fct_max_us",
                "elephant_gbps"])
    for case in dict.fromkeys(r["case"] for r in rows):
        sel = [r for r in rows if r["case"] == case]
        fct = [float(r["fct_us"]) for r in sel]
        w.writerow([case, sel[0]["elephant_paths"], len(sel), f"{pct(fct, 0.5):.1f}",
                    f"{pct(fct, 0.99):.1f}", f"{max(fct):.1f}", sel[0]["elephant_gbps"]])
PY
column -s, -t "$here/results.csv" >&2
/usr/bin/python3 "$here/plot.py" "$here/mice.csv" "$here/mice.png"
