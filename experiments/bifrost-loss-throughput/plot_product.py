#!/usr/bin/env python3
"""The product default under random loss (results_product.csv): goodput at 1/1024 and 1/100 as a
fraction of the same scheme's lossless goodput, per request size, one panel per setup."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = list(csv.DictReader(open(sys.argv[1])))
setups = [("fig7", "the paper's setup (25 Gb/s, MTU 1024, loss toward the server)"),
          ("100g", "100 Gb/s, MTU 4096, loss both ways")]
schemes = [("bifrost_uc_default", "product default (loss gate)", "s-", "tab:blue"),
           ("bifrost_uc_default_no_gate", "without the gate (every loss cuts)", "x--", "tab:red"),
           ("bifrost_uc_default_queuing", "queue sign alone (loss_needs_queuing)", "d:",
            "tab:green")]
goodput = {(r["setup"], r["scheme"], int(r["size"]), float(r["loss"])): float(r["goodput"])
           for r in rows}
fig, axes = plt.subplots(1, len(setups), figsize=(6 * len(setups), 4), sharey=True,
                         squeeze=False)
for ax, (setup, title) in zip(axes[0], setups):
    for key, label, style, color in schemes:
        for loss, alpha in ((0.01, 1.0), (0.0009765625, 0.45)):
            sizes = sorted(s for (st, k, s, l) in goodput if st == setup and k == key and l == loss)
            ratio = [goodput[(setup, key, s, loss)] / goodput[(setup, key, s, 0.0)] for s in sizes]
            if sizes:
                ax.plot(sizes, ratio, style, color=color, alpha=alpha,
                        label=f"{label}, loss 1/{round(1 / loss)}")
    ax.axhline(0.8, color="grey", lw=0.8, ls="-.", label="issue 25: 80% of lossless")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("request size (bytes)")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
axes[0][0].set_ylabel("goodput / lossless goodput")
axes[0][-1].legend(fontsize=7, loc="lower right")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
print(f"wrote {sys.argv[2]}")
