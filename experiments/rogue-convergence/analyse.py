"""One series of rogue-convergence: appends its whole per-flow samples to samples.csv and its
pause and drop totals to the pauses table.
Usage: analyse.py OUT_DIR SERIES SAMPLES_CSV PAUSES_CSV"""
import csv
import json
import sys

out, series, samples_path, pauses_path = sys.argv[1:5]
source = {}
with open(f"{out}/flows.csv") as f:
    for row in csv.DictReader(f):
        source[row["id"]] = row["src"]
with open(samples_path, "a") as f:
    for row in csv.DictReader(open(f"{out}/flow_throughput.csv")):
        if row["whole"] != "1":
            continue
        f.write("{},{},{:.6f},{:.6f},{:.4f}\n".format(
            series, source[row["flow"]], int(row["start_ps"]) / 1e12, int(row["end_ps"]) / 1e12,
            float(row["gbps"])))
summary = json.load(open(f"{out}/summary.json"))
ports = summary["pauses"]["by_port"].values()
longest_port = max((p["paused_ps"] for p in ports), default=0)
with open(pauses_path, "a") as f:
    f.write("{},{},{:.1f},{:.1f},{},{}\n".format(
        series, summary["pauses"]["count"], longest_port / 1e6,
        summary["pauses"]["paused_ps"] / 1e6, summary["drops"]["total"],
        summary["flows"]["total"]))
