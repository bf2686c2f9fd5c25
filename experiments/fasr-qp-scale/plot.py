#!/usr/bin/python3
"""Plots results.csv of experiments/fasr-qp-scale: goodput vs QPs without loss (Fig. 7(b)) and
goodput vs loss at 5,000 QPs (Fig. 7(c)), one row per NIC transmit scheduler, with the paper's
1% points as hollow markers."""
import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ENGINES = [("gbn", "GBN, CX-6-like cache", "tab:gray"), ("irn", "IRN", "tab:blue"),
           ("srnic", "SRNIC", "tab:orange"), ("fasr", "FaSR", "tab:green")]


def main(here):
    with open(os.path.join(here, "results.csv")) as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(here, "paper.json")) as f:
        paper = json.load(f)["fig7c_5000_qps_loss_1pct"]
    bursts = sorted({int(r["burst_packets"]) for r in rows})
    fig, axes = plt.subplots(len(bursts), 2, figsize=(11, 4 * len(bursts)), squeeze=False)
    for row, burst in enumerate(bursts):
        for engine, label, color in ENGINES:
            pts = [r for r in rows if int(r["burst_packets"]) == burst and r["engine"] == engine]
            b = sorted((int(r["qps"]), 100 * float(r["goodput_fraction"]))
                       for r in pts if r["figure"] == "7b")
            c = sorted((100 * float(r["loss"]), 100 * float(r["goodput_fraction"]))
                       for r in pts if r["figure"] == "7c")
            if b:
                axes[row][0].plot(*zip(*b), "o-", color=color, label=label)
            if c:
                axes[row][1].plot(*zip(*c), "o-", color=color, label=label)
            axes[row][1].plot([1], [100 * paper[engine]["goodput_fraction"]], "o", color=color,
                              markerfacecolor="none", markersize=10)
        scheduler = "packet round-robin" if burst == 1 else f"{burst}-packet bursts"
        axes[row][0].set(xscale="log", xlabel="QPs", ylabel="goodput, % of 100 Gb/s",
                         title=f"Fig. 7(b): no loss ({scheduler})", ylim=(0, 100))
        axes[row][1].set(xscale="log", xlabel="loss rate, % (data and ACKs)",
                         ylabel="goodput, % of 100 Gb/s", ylim=(0, 100),
                         title=f"Fig. 7(c): 5K QPs ({scheduler}), hollow = paper")
        for ax in axes[row]:
            ax.title.set_fontsize(10)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(here, "qp_scale.png"), dpi=110)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
