"""Fig. 9 as the paper draws it: median throughput against the loss rate, one line per verb
size (our flow sizes in the legend)."""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

lines = defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    if r["drop_every"] == "0":
        continue
    lines[r["series"]].append((float(r["loss_rate"]) * 100, float(r["median_goodput_gbps"])))
fig, ax = plt.subplots(figsize=(5, 3.4))
for name, pts in sorted(lines.items()):
    pts.sort()
    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
ax.axvline(0.025, color="grey", linestyle=":", label="paper: performs well up to 0.025%")
ax.set_xscale("log")
ax.set_xlabel("packet loss (%), every N-th packet per NIC")
ax.set_ylabel("median throughput per flow (Gb/s)")
ax.legend(fontsize=7)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
print(f"wrote {sys.argv[2]}")
