#!/usr/bin/env python3
"""Goodput vs request size at the paper's setup, one panel per loss rate (results.csv)."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

LINE_GBPS = 25  # cluster A's CX-4 Lx ports
rows = list(csv.DictReader(open(sys.argv[1])))
losses = sorted({float(r["loss"]) for r in rows})
schemes = [("ardma", "ARDMA (READ waits for its 67 ms QP timer)", "o-"),
           ("bifrost_uc_paper", "Bifröst UC, paper config", "s-"),
           ("bifrost_rc_paper", "Bifröst RC, paper config", "^-"),
           ("ardma_reissue", "ARDMA, READ re-issued at once", "o:"),
           ("ardma_timeout_1ms", "ARDMA, 1 ms QP timer", "o--"),
           ("bifrost_uc_default", "Bifröst UC, product default (loss gate)", "s--"),
           ("bifrost_uc_default_no_gate", "Bifröst UC, product default without the gate", "x--"),
           ("bifrost_uc_default_queuing", "Bifröst UC, default, 50 us base, loss needs queuing",
            "d--"),
           ("bifrost_uc_paper_cc_none", "Bifröst UC, paper config without CC", "s:"),
           ("bifrost_uc_paper_tail_probe", "Bifröst UC, paper config with our tail probe", "v:"),
           ("bifrost_uc_paper_rto_150us", "Bifröst UC, paper config, 150 us RTO floor", "<:")]
fig, axes = plt.subplots(1, len(losses), figsize=(5.5 * len(losses), 4), sharey=True,
                         squeeze=False)
for ax, loss in zip(axes[0], losses):
    for key, label, style in schemes:
        pts = sorted((int(r["size"]), LINE_GBPS * float(r["goodput"])) for r in rows
                     if r["scheme"] == key and float(r["loss"]) == loss)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=label)
    ax.axhline(20, color="grey", lw=0.8, ls="-.", label="paper: Bifröst ~20 Gb/s")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("request size (bytes)")
    ax.set_title(f"loss 1/{round(1 / loss)} (toward the server)")
    ax.grid(alpha=0.3)
axes[0][0].set_ylabel(f"goodput (Gb/s of {LINE_GBPS})")
axes[0][0].legend(fontsize=7)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
print(f"wrote {sys.argv[2]}")
