"""RoGUE in the real runtime, 3 -> 1: each client's rate per second at the server (first run of
each scheme), and per scheme the aggregate goodput (share of the bottleneck) and Jain's index
over all runs."""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

results, intervals, out = sys.argv[1:4]
runs = list(csv.DictReader(open(results)))
series = defaultdict(lambda: defaultdict(list))  # scheme -> client -> [(t, gbps)]
for r in csv.DictReader(open(intervals)):
    if r["rep"] == "1":
        series[r["scheme"]][int(r["client"])].append((float(r["t_s"]), float(r["gbps"])))
schemes = list(dict.fromkeys(r["scheme"] for r in runs))
rate = float(runs[0]["rate_mbit"]) / 1000
clients = int(runs[0]["clients"])
fig, axes = plt.subplots(1, len(schemes) + 1, figsize=(3.3 * (len(schemes) + 1), 3.2),
                         squeeze=False)
for ax, scheme in zip(axes[0], schemes):
    for client, pts in sorted(series[scheme].items()):
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"client {client}")
    ax.axhline(rate / clients, color="grey", linestyle=":", label="fair share")
    ax.set_title(scheme, fontsize=9)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("Gb/s at the server (wire)")
    ax.set_ylim(0, rate)
    ax.legend(fontsize=6)
ax = axes[0][-1]
for i, scheme in enumerate(schemes):
    rs = [r for r in runs if r["scheme"] == scheme]
    ax.scatter([i] * len(rs), [float(r["of_bottleneck"]) for r in rs], color="C0",
               label="aggregate / bottleneck" if i == 0 else None)
    ax.scatter([i] * len(rs), [float(r["jain"]) for r in rs], color="C1", marker="x",
               label="Jain" if i == 0 else None)
ax.axhline(0.85, color="C0", linestyle=":")
ax.axhline(0.95, color="C1", linestyle=":")
ax.set_xticks(range(len(schemes)))
ax.set_xticklabels(schemes, fontsize=7, rotation=20)
ax.set_ylim(0, 1.05)
ax.set_title(f"{clients} -> 1 at {rate * 1000:g} Mbit/s", fontsize=9)
ax.legend(fontsize=6)
fig.tight_layout()
fig.savefig(out, dpi=120)
print(f"wrote {out}")
