#!/usr/bin/python3
"""Plots results.csv (or the CSV named) of experiments/fasr-qp-scale: goodput vs QPs without loss (Fig. 7(b)) and
goodput vs loss at 5,000 QPs (Fig. 7(c)), one row per NIC transmit scheduler, with the paper's
1% points as hollow markers and, in the round-robin row, the serial-fetch sensitivity at 1% as
crosses."""
import csv
import json
import os
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import fasr_common  # noqa: E402

# SRNIC dashed with open squares: it lies on FaSR's line at every point.
ENGINES = [("gbn", "GBN, CX-6-like cache", "tab:gray", "o-"), ("irn", "IRN", "tab:blue", "o-"),
           ("srnic", "SRNIC", "tab:orange", "s--"), ("fasr", "FaSR", "tab:green", "o-")]


def main(here, results="results.csv", png="qp_scale.png"):
    with open(os.path.join(here, results)) as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(here, "paper.json")) as f:
        paper = json.load(f)["fig7c_5000_qps_loss_1pct"]
    bursts = sorted({int(r["burst_packets"]) for r in rows})
    # Mixed READ/WRITE moves data both ways: goodput is over both directions of the port.
    both = rows[0].get("opcode") == "mixed"
    ylabel = "goodput, % of 2 x 100 Gb/s" if both else "goodput, % of 100 Gb/s"
    fig, axes = plt.subplots(len(bursts), 2, figsize=(11, 4 * len(bursts)), squeeze=False)
    for row, burst in enumerate(bursts):
        for engine, label, color, style in ENGINES:
            pts = [r for r in rows if int(r["burst_packets"]) == burst and r["engine"] == engine]
            b = sorted((int(r["qps"]), 100 * float(r["goodput_fraction"]))
                       for r in pts if r["figure"] == "7b")
            c = sorted((100 * float(r["loss"]), 100 * float(r["goodput_fraction"]))
                       for r in pts if r["figure"] == "7c")
            if b:
                axes[row][0].plot(*zip(*b), style, color=color, label=label, mfc="none")
            if c:
                axes[row][1].plot(*zip(*c), style, color=color, label=label, mfc="none")
            axes[row][1].plot([1], [100 * paper[engine]["goodput_fraction"]], "o", color=color,
                              markerfacecolor="none", markersize=10)
            # Sensitivity: serial context fetches at 5K QPs and 1%, crosses in the round-robin row.
            serial = [100 * float(r["goodput_fraction"]) for r in rows
                      if r["series"] == f"serial-5000-{engine}" and float(r["loss"]) == 0.01]
            if burst == 1 and serial:
                axes[row][1].plot([1], serial, "x", color=color, markersize=9,
                                  label=f"{label}, serial fetches")
        scheduler = "packet round-robin" if burst == 1 else f"{burst}-packet bursts"
        axes[row][0].set(xscale="log", xlabel="QPs", ylabel=ylabel,
                         title=f"Fig. 7(b): no loss ({scheduler})", ylim=(0, 100))
        axes[row][1].set(xscale="log", xlabel="loss rate, % (data and ACKs)",
                         ylabel=ylabel, ylim=(0, 100),
                         title=f"Fig. 7(c): 5K QPs ({scheduler}), hollow = paper")
    fasr_common.finish(fig, [ax for row in axes for ax in row], here, png)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)),
         *sys.argv[2:4])
