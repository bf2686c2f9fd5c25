#!/usr/bin/env python3
"""Fig. 9: server goodput and switch drops vs incast ratio, minimum chunk 4 KiB vs 1 KiB."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = list(csv.DictReader(open(sys.argv[1])))
series = [("unit4k", "min chunk 4 KiB", "o-"), ("unit1k", "min chunk 1 KiB", "s-")]
fig, (ax_tp, ax_drops) = plt.subplots(1, 2, figsize=(10, 3.6))
for key, label, style in series:
    pts = sorted((int(r["ratio"]), float(r["goodput_gbps"]), float(r["link_gbps"]),
                  int(r["window_drops"])) for r in rows if r["series"] == key)
    if not pts:
        continue
    ratios = [p[0] for p in pts]
    line, = ax_tp.plot(ratios, [p[1] for p in pts], style, label=f"{label}: goodput")
    ax_tp.plot(ratios, [p[2] for p in pts], style.replace("-", ":"), color=line.get_color(),
               label=f"{label}: server link")
    ax_drops.plot(ratios, [p[3] for p in pts], style, label=label)
ax_tp.set_xlabel("incast ratio (clients x 8 threads x depth 8)")
ax_tp.set_ylabel("Gb/s at the server")
ax_tp.set_ylim(0, 105)
ax_tp.grid(alpha=0.3)
ax_tp.legend(fontsize=7)
ax_drops.set_xlabel("incast ratio (clients x 8 threads x depth 8)")
ax_drops.set_ylabel("switch drops in the 8 ms window")
ax_drops.grid(alpha=0.3)
ax_drops.legend(fontsize=8)
fig.suptitle("32 KiB RPCs over Bifröst UC, no PFC, 4 MB switch buffer", fontsize=10)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
print(f"wrote {sys.argv[2]}")
