"""Fig. 15 (a) median FCT of the 1 MB flows and (b) 90th-percentile FCT of the 1 KB messages,
against the load, one line per scheme.
Usage: plot.py RESULTS_CSV OUT_PNG"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

lines = defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    lines[r["scheme"]].append((float(r["load"]), float(r["large_fct_p50_us"]) / 1e3,
                               float(r["small_fct_p90_us"])))
fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.4))
for scheme, pts in sorted(lines.items()):
    pts.sort()
    a.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=scheme)
    b.plot([p[0] for p in pts], [p[2] for p in pts], marker="o", label=scheme)
a.set_title("(a) 1 MB flows, median FCT")
a.set_ylabel("ms (log)")
b.set_title("(b) 1 KB messages, p90 FCT")
b.set_ylabel("us (log)")
b.set_yscale("log")
for ax in (a, b):
    ax.set_xlabel("load per host")
    ax.legend(fontsize=7)
a.set_yscale("log")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
print(f"wrote {sys.argv[2]}")
