"""One series of rogue-parking-lot: appends its whole per-flow samples to samples.csv, its
probes' RTTs to probes.csv, and one row of run totals (Jain, probe percentiles, drops) to the
totals table. probes.csv keeps every KEEP-th probe (the totals count them all), so that fast
probes do not bloat it.
Usage: analyse.py OUT_DIR SERIES SAMPLES_CSV PROBES_CSV TOTALS_CSV [KEEP]"""
import csv
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from rogue_common import append_flow_samples  # noqa: E402

out, series, samples_path, probes_path, totals_path = sys.argv[1:6]
keep = int(sys.argv[6]) if len(sys.argv) > 6 else 1
append_flow_samples(out, series, samples_path)
with open(probes_path, "a") as f:
    for row in csv.DictReader(open(f"{out}/probe_rtt.csv")):
        if int(row["seq"]) % keep != 0:
            continue
        f.write("{},{:.6f},{:.3f}\n".format(series, int(row["posted_ps"]) / 1e12,
                                            int(row["rtt_ps"]) / 1e6))
summary = json.load(open(f"{out}/summary.json"))
probe = summary["probes"]["probe"]
with open(totals_path, "a") as f:
    f.write("{},{},{},{},{},{}\n".format(series, summary["flow_throughput"]["jain_run"],
                                        probe["p50_us"], probe["p90_us"], probe["completed"],
                                        summary["drops"]["total"]))
