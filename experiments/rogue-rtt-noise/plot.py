"""Fig. 8 as the paper draws it: aggregate throughput of the incast against the noise bound x."""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

lines = defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    lines[f"{r['series']} seed {r['seed']}"].append((float(r["noise_us"]), float(r["aggregate_gbps"])))
fig, ax = plt.subplots(figsize=(5, 3.4))
for name, pts in sorted(lines.items()):
    pts.sort()
    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
ax.axvline(100, color="grey", linestyle=":", label="paper: visible drop at mean 50 us (x = 100)")
ax.set_xlabel("noise bound x (us): samples + uniform [0, x]")
ax.set_ylabel("aggregate throughput (Gb/s)")
ax.set_ylim(bottom=0)
ax.legend(fontsize=7)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
print(f"wrote {sys.argv[2]}")
