"""One series of rogue-convergence: appends its whole per-flow samples to samples.csv and its
pause and drop totals to the pauses table.
Usage: analyse.py OUT_DIR SERIES SAMPLES_CSV PAUSES_CSV"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from rogue_common import append_flow_samples  # noqa: E402

out, series, samples_path, pauses_path = sys.argv[1:5]
append_flow_samples(out, series, samples_path)
summary = json.load(open(f"{out}/summary.json"))
ports = summary["pauses"]["by_port"].values()
longest_port = max((p["paused_ps"] for p in ports), default=0)
with open(pauses_path, "a") as f:
    f.write("{},{},{:.1f},{:.1f},{},{}\n".format(
        series, summary["pauses"]["count"], longest_port / 1e6,
        summary["pauses"]["paused_ps"] / 1e6, summary["drops"]["total"],
        summary["flows"]["total"]))
