#!/usr/bin/python3
"""Plots FaSR's fast-path share of recovery episodes vs concurrency, one line per traffic type:
incast and websearch from results.csv (this folder), random loss from
../fasr-one-loss/results.csv (one QP paced to 100/N Gb/s, one line per loss rate) and
../fasr-fast-path/results.csv (series random, N = 1, and share16, N = 16), read as they are.

Usage: plot.py [DIR]   (DIR holds results.csv; paths_by_traffic.png is written there)
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SERIES = [
    ("paper-random", "PAPER SETTING: random loss 1%, 200 Gb/s, BDP 500", "k", "o", "-"),
    ("paper-incast", "PAPER SETTING: 3V1 incast, no CC (x = 3 x QPs per sender)", "tab:purple",
     "s", "-"),
    ("paper-websearch", "PAPER SETTING: websearch 90% load, 200 Gb/s", "tab:cyan", "*", "-"),
    ("incast", "incast, no CC, 400 KB buffer (steady state)", "tab:red", "o", "-"),
    ("incast-pool20", "incast, no CC, 20-unit pool", "tab:red", "s", ":"),
    ("incast-dcqcn", "incast, DCQCN (whole run, 3 seeds)", "tab:orange", "^", "-"),
    ("websearch", "websearch, no CC, 1 MB buffer", "tab:blue", "D", "-"),
    ("websearch-pool20", "websearch, 20-unit pool", "tab:blue", "v", ":"),
    ("websearch-dcqcn", "websearch, DCQCN, 400 KB buffer", "tab:green", "P", "-"),
]


def read(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def main():
    here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    rows = read(os.path.join(here, "results.csv"))
    fig, ax = plt.subplots(figsize=(9, 5.5))

    one_loss = os.path.join(here, "..", "fasr-one-loss", "results.csv")
    if os.path.exists(one_loss):
        ol = read(one_loss)
        losses = sorted({float(r["loss"]) for r in ol})
        greys = plt.cm.Greys([0.35 + 0.6 * i / max(1, len(losses) - 1) for i in range(len(losses))])
        for loss, c in zip(losses, greys):
            sel = sorted((r for r in ol if float(r["loss"]) == loss), key=lambda r: int(r["qps"]))
            ax.errorbar([int(r["qps"]) for r in sel], [100 * float(r["sim_one_loss"]) for r in sel],
                        yerr=[100 * float(r["sim_stderr"]) for r in sel], color=c, lw=1,
                        marker=".", ms=4, label=f"random loss {100 * loss:g}% (fasr-one-loss)")
    fast_path = os.path.join(here, "..", "fasr-fast-path", "results.csv")
    if os.path.exists(fast_path):
        fp = [r for r in read(fast_path) if r["series"] in ("random", "share16")]
        ax.scatter([1 if r["series"] == "random" else 16 for r in fp],
                   [100 * float(r["fast_fraction"]) for r in fp], marker="x", color="0.3", s=25,
                   label="random loss 0.01-5% (fasr-fast-path: N = 1, 16)", zorder=3)

    for series, label, color, marker, ls in SERIES:
        sel = [r for r in rows if r["series"] == series and r["fast_fraction"] != ""]
        sel.sort(key=lambda r: float(r["concurrency"]))
        if not sel:
            continue
        xs = [float(r["concurrency"]) for r in sel]
        ys = [100 * float(r["fast_fraction"]) for r in sel]
        es = [100 * float(r["fast_stderr"]) for r in sel]
        ax.errorbar(xs, ys, yerr=es, color=color, ls=ls, marker=marker, lw=2, ms=6,
                    mfc="none" if ls == ":" else color, label=label, capsize=3, zorder=4)
        for r, x_, y_ in zip(sel, xs, ys):
            if r["enough_episodes"] != "1":  # fewer than 50 episodes: ring the point
                ax.scatter([x_], [y_], s=160, facecolors="none", edgecolors="k", lw=1, zorder=5)
            if r["kind"].endswith("websearch") and ls == "-":
                ax.annotate(f"load {r['x']}", (x_, y_), textcoords="offset points",
                            xytext=(6, 6), fontsize=8, color=color)
    ax.axhline(70, color="k", ls="--", lw=0.8)
    ax.text(1.05, 71.5, "paper: > 70% at high concurrency", fontsize=8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("concurrency: QPs into the receiving NIC\n(incast: N senders; websearch: mean "
                  "active flows per NIC; random loss: N, one QP paced to 100/N Gb/s)", fontsize=8)
    ax.set_ylabel("fast-path share of FaSR recovery episodes (%)")
    ax.set_ylim(-3, 103)
    ax.set_title("FaSR: one PSN missing per recovery episode, by traffic (ringed: < 50 episodes)",
                 fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(os.path.join(here, "paths_by_traffic.png"), dpi=130)


if __name__ == "__main__":
    main()
