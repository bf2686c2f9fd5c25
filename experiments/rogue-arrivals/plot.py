"""Fig. 12 (a) and (b): per-flow goodput over time of each series, with the flows' starts (red)
and finishes (green) as vertical lines.
Usage: plot.py SAMPLES_CSV EVENTS_CSV OUT_PNG SERIES..."""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

samples_path, events_path, out, *series = sys.argv[1:]
lines = defaultdict(lambda: defaultdict(list))
for r in csv.DictReader(open(samples_path)):
    lines[r["series"]][r["src"]].append((float(r["end_s"]), float(r["gbps"])))
events = defaultdict(list)
for r in csv.DictReader(open(events_path)):
    events[r["series"]].append((float(r["time_s"]), r["event"]))
series = [s for s in series if s in lines]
cols = min(2, len(series))
rows = (len(series) + cols - 1) // cols
fig, axes = plt.subplots(rows, cols, figsize=(6 * cols, 3.6 * rows), squeeze=False)
for ax in axes.flat[len(series):]:
    ax.set_visible(False)
for ax, name in zip(axes.flat, series):
    for src, pts in sorted(lines[name].items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=f"from h{src}")
    for t, kind in events[name]:
        ax.axvline(t, color="red" if kind == "start" else "green", linewidth=0.6)
    ax.set_title(name)
    ax.set_xlabel("time, s")
    ax.set_ylabel("goodput, Gb/s")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7)
fig.tight_layout()
fig.savefig(out, dpi=120)
print(f"wrote {out}")
