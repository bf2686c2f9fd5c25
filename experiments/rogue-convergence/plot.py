"""convergence.png: per-flow goodput over time of the Fig. 16 series (RoGUE, TIMELY, DCQCN),
one panel each, as the paper's Fig. 16 (a)-(c), and RoGUE with its RC estimator anchored
(sensitivity, README) when that series ran.
Usage: plot.py SAMPLES_CSV OUT_PNG"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

panels = ["rogue", "timely", "dcqcn", "rogue_anchor2_per_rtt"]
data = defaultdict(lambda: defaultdict(list))
for row in csv.DictReader(open(sys.argv[1])):
    if row["series"] in panels:
        data[row["series"]][row["flow"]].append((float(row["end_s"]), float(row["gbps"])))
panels = [p for p in panels if p in data]
fig, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 3.2), sharey=True)
for ax, series in zip(axes, panels):
    for flow, points in sorted(data[series].items()):
        points.sort()
        ax.plot([t for t, _ in points], [g for _, g in points], marker=".", label=f"host {flow}")
    ax.set_title(series)
    ax.set_xlabel("time (s)")
    ax.grid(alpha=0.3)
axes[0].set_ylabel("per-flow goodput (Gb/s)")
axes[0].set_ylim(0, 42)
axes[-1].legend(fontsize=7)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
