"""The CPU proxy per MB against the message size, one line per K (Fig. 8): WRs posted and
completion-channel wake-ups."""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = list(csv.DictReader(open(sys.argv[1])))
by_k = defaultdict(list)
for r in rows:
    by_k[int(r["paths"])].append(r)

fig, axes = plt.subplots(1, 3, figsize=(14, 4))
for ax, column, title in zip(axes, ["wrs_per_mb", "wakeups_per_mb", "calls_per_mb"],
                             ["constituent WRs posted per MB", "wake-ups per MB",
                              "MP_ library calls per MB"]):
    for k, points in sorted(by_k.items()):
        points.sort(key=lambda r: int(r["message_bytes"]))
        ax.plot([int(r["message_bytes"]) for r in points], [float(r[column]) for r in points],
                "-o", ms=3, label=f"K = {k}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("MP WRITE size (bytes)")
    ax.set_title(title)
    ax.legend(fontsize=8)
fig.suptitle("Virtuoso's CPU proxy (Fig. 8 measured cycles)")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
