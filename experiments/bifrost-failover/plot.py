#!/usr/bin/env python3
"""§3.4.2: a Bifröst connection's stall after its primary path dies, backup QP vs reconnect."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = list(csv.DictReader(open(sys.argv[1])))
labels, detect, stall = [], [], []
for r in rows:
    backup = "2 backups" if r["backups"] != "0" else "no backup"
    labels.append(f"{r['mode'].upper()}, {backup}\n({r['setup']})")
    detect.append(float(r["detect_us"]) / 1000)
    stall.append(float(r["stall_us"]) / 1000)
fig, ax = plt.subplots(figsize=(9, 3.8))
x = range(len(rows))
ax.bar(x, detect, label="detection (path death to giving up the primary)", color="#bbbbbb")
ax.bar(x, stall, bottom=detect, label="stall (giving up to the next ACK)", color="#3070b0")
for xi, s in zip(x, stall):
    ax.annotate(f"{s * 1000:.0f} us", (xi, 0), textcoords="offset points", xytext=(0, 3),
                ha="center", fontsize=7)
ax.axhline(5, ls="--", color="red", lw=0.8, label="paper: QP re-establishment ~5 ms")
ax.axhline(0.06, ls=":", color="green", lw=0.8, label="paper: backup switch ~60 us")
ax.set_xticks(list(x))
ax.set_xticklabels(labels, fontsize=7)
ax.set_ylabel("ms")
ax.legend(fontsize=7)
ax.grid(axis="y", alpha=0.3)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
