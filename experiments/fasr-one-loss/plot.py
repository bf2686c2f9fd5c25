#!/usr/bin/python3
"""Plots the probability that a QP loses exactly one packet per recovery period (FaSR Fig. 3).

Left: the premise's formula (1 - p)^(k - 1) as lines over k, the QP's packets per RTT, one per
loss rate, with the simulated fast-path fraction of FaSR's recovery episodes as markers (one QP
paced at 100/N Gb/s: N QPs sharing the link). Right: the same simulated points against the
three formulas of results.csv for two loss rates.

Usage: plot.py [DIR]   (DIR holds results.csv; one_loss.png is written there)
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

COLORS = ["tab:blue", "tab:green", "tab:purple", "tab:orange", "tab:red"]


def load(here):
    with open(os.path.join(here, "results.csv")) as f:
        return list(csv.DictReader(f))


def column(rows, loss, name):
    pts = sorted((float(r["packets_per_rtt"]), float(r[name])) for r in rows
                 if float(r["loss"]) == loss and r[name] != "")
    return [k for k, _ in pts], [100 * v for _, v in pts]


def main():
    here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    rows = load(here)
    losses = sorted({float(r["loss"]) for r in rows})
    k_line = max(float(r["packets_per_rtt"]) for r in rows)
    ks = [2 + i * (k_line - 2) / 400 for i in range(401)]
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(14, 5.6))

    for loss, color in zip(losses, COLORS):
        ax.plot(ks, [100 * (1 - loss) ** (k - 1) for k in ks], "-", color=color, lw=1.5,
                label=f"(1-p)^(k-1), p = {loss * 100:g}%")
        k, sim = column(rows, loss, "sim_one_loss")
        ax.plot(k, sim, "o", color=color, ms=6, mfc="none", mew=1.6)
    ax.plot([], [], "o", color="0.3", mfc="none", mew=1.6,
            label="simulated: FaSR episodes on the fast path")
    ax.axhline(70, color="0.4", ls=":", lw=1)
    ax.text(2.05, 68, "70%: the paper says above this\nat high concurrency", ha="left",
            va="top", fontsize=8, color="0.3")
    ax.set_xscale("log")
    ax.set_xticks([2, 3, 4, 6, 8, 12, 17, 23, 34, 68])
    ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.get_xaxis().set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("k: the QP's data packets per RTT (6 us; 100 Gb/s shared by N QPs)")
    ax.set_ylabel("P(exactly one loss in the recovery period) (%)")
    ax.set_ylim(0, 102)
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title("Premise (Fig. 3): one loss per recovery period, random loss")
    ax.legend(fontsize=8, loc="lower left")
    def flip(x):  # k <-> N = k_line / k (its own inverse)
        return k_line / np.maximum(x, 1e-9)

    top = ax.secondary_xaxis("top", functions=(flip, flip))
    top.set_xticks([1, 2, 4, 8, 16, 32])
    top.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
    top.set_xlabel("N: QPs sharing the 100 Gb/s link fairly")

    for loss, color in zip((0.01, 0.05), ("tab:purple", "tab:red")):
        k, sim = column(rows, loss, "sim_one_loss")
        ax2.plot(k, sim, "o", color=color, ms=7, label=f"simulated, p = {loss * 100:g}%")
        for name, style, label in (("premise_formula", "-", "(a) (1-p)^(k-1)"),
                                   ("window_formula", "--",
                                    "(b) P(one | at least one) in k packets"),
                                   ("mechanism_model", ":",
                                    "(c) FaSR's realized period (README)")):
            k, y = column(rows, loss, name)
            ax2.plot(k, y, style, color=color, lw=1.4, label=f"{label}, p = {loss * 100:g}%")
    ax2.set_xscale("log")
    ax2.set_xticks([2, 3, 4, 6, 8, 12, 17, 23, 34, 68])
    ax2.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax2.get_xaxis().set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax2.set_xlabel("k: the QP's data packets per RTT")
    ax2.set_ylabel("P(exactly one loss in the recovery period) (%)")
    ax2.set_ylim(0, 102)
    ax2.grid(True, which="both", alpha=0.3)
    ax2.set_title("Which formula the simulation follows")
    ax2.legend(fontsize=7.5, loc="lower left")

    fig.suptitle("FaSR Fig. 3 premise under independent random loss (data and ACKs), one FaSR QP "
                 "paced at 100/N Gb/s, RTT 6 us, MTU 1024, 8 KB WRITEs", fontsize=11)
    fig.tight_layout()
    out = os.path.join(here, "one_loss.png")
    fig.savefig(out, dpi=120)
    print(out)


if __name__ == "__main__":
    main()
