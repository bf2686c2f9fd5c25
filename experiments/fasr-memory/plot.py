#!/usr/bin/python3
"""Plots NIC recovery memory vs the number of QPs per engine from results.csv (FaSR Fig. 8(b)).

Left: the SR overhead, N x per-QP bytes + shared bytes, which Fig. 8(b) plots (GBN keeps no SR
state: zero, off a log axis). Right: the total per QP, with the 256 B base context.
Crossovers are the tool's (column fasr_below_from), not computed here.

Usage: plot.py [DIR]   (DIR holds results.csv; memory_vs_qps.png is written there)
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"gbn": "tab:red", "irn": "tab:blue", "srnic": "tab:green", "fasr": "tab:purple"}


def load(here):
    with open(os.path.join(here, "results.csv")) as f:
        return list(csv.DictReader(f))


def series(rows, name, engine, column):
    pts = sorted((int(r["qps"]), int(r[column])) for r in rows
                 if r["series"] == name and r["engine"] == engine)
    return [n for n, _ in pts], [v for _, v in pts]


def first(rows, name, engine):
    return next(r for r in rows if r["series"] == name and r["engine"] == engine)


def main():
    here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    rows = load(here)
    bdp = first(rows, "paper", "irn")["bdp_packets"]
    pool = int(first(rows, "paper", "fasr")["shared_bytes"])
    pool_iiid = int(first(rows, "pool_iiid", "fasr")["shared_bytes"])
    bdp2 = first(rows, "bdp128", "irn")["bdp_packets"]
    lines = [  # (series, engine, label, style)
        ("paper", "irn", f"IRN, BDP {bdp} packets", "-"),
        ("bdp128", "irn", f"IRN, BDP {bdp2} packets", "--"),
        ("paper", "srnic", "SRNIC (bitmap in host memory)", "-"),
        ("paper", "fasr", f"FaSR, {pool:,} B pool", "-"),
        ("pool_iiid", "fasr", f"FaSR, III-D pool ({pool_iiid} B)", "--"),
    ]

    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(13, 5.2))
    for name, engine, label, style in lines:
        x, y = series(rows, name, engine, "sr_overhead_bytes")
        ax.plot(x, y, style, color=COLORS[engine], lw=2, label=label)
        x, total = series(rows, name, engine, "total_bytes")
        ax2.plot(x, [t / n for n, t in zip(x, total)], style, color=COLORS[engine], lw=2,
                 label=label)
    x, total = series(rows, "paper", "gbn", "total_bytes")
    ax2.plot(x, [t / n for n, t in zip(x, total)], "-", color=COLORS["gbn"], lw=2,
             label="GBN (no SR state)")

    # The crossovers the tool found for the paper's setting.
    for engine, y in (("irn", 0.93), ("srnic", 0.85)):
        n = first(rows, "paper", engine)["fasr_below_from"]
        if not n:
            continue
        for a in (ax, ax2):
            a.axvline(int(n), color=COLORS[engine], ls=":", lw=1.2)
        ax.text(int(n) * 1.08, y, f"FaSR < {engine.upper()}\nfrom N = {n}",
                transform=ax.get_xaxis_transform(), color=COLORS[engine], fontsize=9, va="top")

    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("QPs on the NIC (N)")
    ax.set_ylabel("SR overhead, bytes (N x per-QP + shared)")
    ax.set_title("(b) SR memory overhead vs QPs (GBN: 0)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")

    ax2.set_xscale("log")
    ax2.set_yscale("log")
    ax2.set_ylim(200, 2200)
    ax2.set_yticks([256, 300, 400, 600, 1000, 2000])
    ax2.get_yaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax2.get_yaxis().set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax2.set_xlabel("QPs on the NIC (N)")
    ax2.set_ylabel("total recovery memory per QP, bytes (incl. 256 B base)")
    ax2.set_title("Total per QP")
    ax2.grid(True, which="both", alpha=0.3)
    ax2.legend(fontsize=8, loc="upper right")

    fig.suptitle(f"NIC memory of loss recovery, FaSR accounting (section V-A); BDP {bdp} packets "
                 "= 100 Gb/s x 6 us / 1 KB MTU", fontsize=11)
    fig.tight_layout()
    out = os.path.join(here, "memory_vs_qps.png")
    fig.savefig(out, dpi=120)
    print(out)


if __name__ == "__main__":
    main()
