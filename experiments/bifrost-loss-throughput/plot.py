#!/usr/bin/env python3
"""Goodput vs request size, one panel per loss rate (results.csv from run.sh)."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = list(csv.DictReader(open(sys.argv[1])))
losses = sorted({float(r["loss"]) for r in rows})
schemes = [("plain_rc", "plain RC (NIC go-back-N)", "o-"),
           ("bifrost_uc", "Bifröst over UC (Swift, min window on loss)", "s-"),
           ("bifrost_rc", "Bifröst over RC", "^-"),
           ("bifrost_uc_swift_md", "Bifröst UC, Swift MD on loss", "s--"),
           ("bifrost_uc_cc_none", "Bifröst UC, no CC", "s:")]
fig, axes = plt.subplots(1, len(losses), figsize=(5 * len(losses), 3.6), sharey=True)
for ax, loss in zip(axes if len(losses) > 1 else [axes], losses):
    for key, label, style in schemes:
        pts = sorted((int(r["size"]), 100 * float(r["goodput"])) for r in rows
                     if r["scheme"] == key and float(r["loss"]) == loss)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=label)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("request size (bytes)")
    ax.set_title(f"loss 1/{round(1 / loss)}")
    ax.grid(alpha=0.3)
axes[0].set_ylabel("goodput (% of 100 Gb/s)") if len(losses) > 1 else axes.set_ylabel("goodput")
(axes[0] if len(losses) > 1 else axes).legend(fontsize=8)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
print(f"wrote {sys.argv[2]}")
