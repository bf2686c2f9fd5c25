"""Fig. 10 as the paper draws it: CDFs of the flows' interval throughput and of RoGUE's
estimate, one panel per series."""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

series = defaultdict(lambda: ([], []))
for r in csv.DictReader(open(sys.argv[1])):
    good, est = series[r["series"]]
    good.append(float(r["goodput_gbps"]))
    if r["estimate_gbps"] != "nan":
        est.append(float(r["estimate_gbps"]))
cols = 3
rows = (len(series) + cols - 1) // cols
fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
for ax in axes.flat[len(series):]:
    ax.axis("off")
for ax, (name, (good, est)) in zip(axes.flat, series.items()):
    for values, label in ((good, "measured"), (est, "estimate (cwnd/RTT)")):
        values = sorted(values)
        if values:
            ax.step(values, [(i + 1) / len(values) for i in range(len(values))], where="post",
                    label=label)
    ax.axvline(1.21, color="grey", linestyle=":", label="paper's ideal 1.21")
    # Slow start's samples (and a floored base RTT's) estimate far above the line: off the axis.
    beyond = sum(1 for v in est if v > 2.5)
    ax.set_xlim(0, 2.5)
    ax.set_title(f"{name}" + (f" ({beyond} estimates > 2.5)" if beyond else ""), fontsize=9)
    ax.set_xlabel("throughput per flow (Gb/s)")
    ax.set_ylabel("CDF")
    ax.legend(fontsize=7)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
print(f"wrote {sys.argv[2]}")
