#!/usr/bin/python3
"""Plots the fraction of FaSR recovery episodes on the fast and slow paths (Fig. 9(b)).

Left: the fast-path fraction vs loss (log x) per loss pattern, with the independent-loss formula
(1 - p)^(k - 1) as thin dashed lines. Right: fast vs slow as stacked bars per loss rate for the
random-loss runs, the way Fig. 9(b) splits recovery between the two paths.

Usage: plot.py [DIR]   (DIR holds results.csv; fast_path.png is written there)
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SERIES = [  # (series, label, color, marker)
    ("random", "random loss, 1 QP at 100 Gb/s", "tab:purple", "o"),
    ("share16", "random loss, QP paced at 6.25 Gb/s (1 of 16 QPs)", "tab:green", "s"),
    ("burst2", "bursty loss, mean burst 2 packets (100 Gb/s)", "tab:orange", "^"),
    ("burst4", "bursty loss, mean burst 4 packets (100 Gb/s)", "tab:red", "v"),
]


def load(here):
    with open(os.path.join(here, "results.csv")) as f:
        return list(csv.DictReader(f))


def points(rows, series, column):
    pts = sorted((float(r["loss"]), float(r[column])) for r in rows
                 if r["series"] == series and r[column] != "")
    return [x * 100 for x, _ in pts], [y * 100 for _, y in pts]


def main():
    here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    rows = load(here)
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(13.5, 6.4))

    for series, label, color, marker in SERIES:
        x, y = points(rows, series, "fast_fraction")
        ax.plot(x, y, "-", color=color, marker=marker, lw=2, label=label)
        if series in ("random", "share16"):
            k = next(float(r["packets_per_rtt"]) for r in rows if r["series"] == series)
            x, y = points(rows, series, "independent_formula")
            ax.plot(x, y, "--", color=color, lw=1,
                    label=f"(1-p)^(k-1), k = {k:.1f} packets per RTT")
    ax.set_xscale("log")
    ax.set_ylim(0, 102)
    ax.set_xlabel("loss rate per packet and direction (%)")
    ax.set_ylabel("recovery episodes on the fast path (%)")
    ax.set_title("FaSR receiver: share of episodes that never left the fast path")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2)

    losses = sorted({float(r["loss"]) for r in rows})
    width = 0.38
    for i, (series, label, color) in enumerate((("random", "1 QP at 100 Gb/s", "tab:purple"),
                                                ("share16", "1 of 16 QPs (6.25 Gb/s)",
                                                 "tab:green"))):
        fast, slow = [], []
        for loss in losses:
            r = next(r for r in rows if r["series"] == series and float(r["loss"]) == loss)
            n = int(r["episodes"])
            fast.append(100 * int(r["fast_recoveries"]) / n if n else 0)
            slow.append(100 * int(r["slow_recoveries"]) / n if n else 0)
        xs = [j + (i - 0.5) * width for j in range(len(losses))]
        ax2.bar(xs, fast, width, color=color, label=f"fast path, {label}")
        ax2.bar(xs, slow, width, bottom=fast, color=color, alpha=0.3, hatch="//",
                label=f"slow path, {label}")
        for x, f in zip(xs, fast):
            if f >= 8:
                ax2.text(x, f - 2, f"{f:.0f}", ha="center", va="top", fontsize=7, color="white")
            else:
                ax2.text(x, f + 1, f"{f:.0f}", ha="center", va="bottom", fontsize=8, color="black",
                         bbox=dict(boxstyle="square,pad=0.1", fc="white", ec="none"))
    ax2.set_xticks(range(len(losses)))
    ax2.set_xticklabels([f"{loss * 100:g}%" for loss in losses])
    ax2.set_ylim(0, 128)
    ax2.set_yticks(range(0, 101, 20))
    ax2.set_xlabel("random loss rate")
    ax2.set_ylabel("recovery episodes (%)")
    ax2.set_title("Fast vs slow path, random loss")
    ax2.legend(fontsize=8, loc="upper center", ncol=2)

    fig.suptitle("FaSR fast path vs slow path (Fig. 9(b)); 8 KB WRITEs, RTT 6 us, MTU 1024, "
                 "loss on data and ACKs\nThe paper (as quoted to us, no numbers): the fast path "
                 "handles the large majority of recovery under random loss", fontsize=11)
    fig.tight_layout()
    out = os.path.join(here, "fast_path.png")
    fig.savefig(out, dpi=120)
    print(out)


if __name__ == "__main__":
    main()
