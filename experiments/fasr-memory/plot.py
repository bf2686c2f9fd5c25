#!/usr/bin/python3
"""Plots NIC recovery memory vs the number of QPs per engine from results.csv (FaSR Fig. 8(b)).

Left, the headline: the SR overhead (N x per-QP bytes + shared bytes) by the paper's section V-A
accounting, which Fig. 8(b) plots. Right, the sensitivity: the same quantity counted from what
each engine here keeps on the NIC, the sender's state included (implemented_footprint()). GBN
keeps no SR state: zero, off a log axis. Crossovers are the tool's (column fasr_below_from).

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


def series(rows, name, accounting, engine):
    pts = sorted((int(r["qps"]), int(r["sr_overhead_bytes"])) for r in rows
                 if r["series"] == name and r["accounting"] == accounting
                 and r["engine"] == engine)
    return [n for n, _ in pts], [v for _, v in pts]


def first(rows, name, accounting, engine):
    return next(r for r in rows if r["series"] == name and r["accounting"] == accounting
                and r["engine"] == engine)


def panel(ax, rows, accounting, lines, title):
    for name, engine, label, style in lines:
        x, y = series(rows, name, accounting, engine)
        ax.plot(x, y, style, color=COLORS[engine], lw=2, label=label)
    for engine, y in (("irn", 0.93), ("srnic", 0.80)):
        n = first(rows, "bdp74", accounting, engine)["fasr_below_from"]
        if not n:
            continue
        ax.axvline(int(n), color=COLORS[engine], ls=":", lw=1.2)
        ax.text(int(n) * 1.08, y, f"FaSR < {engine.upper()}\nfrom N = {n}",
                transform=ax.get_xaxis_transform(), color=COLORS[engine], fontsize=9, va="top")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("QPs on the NIC (N)")
    ax.set_ylabel("SR overhead, bytes (N x per-QP + shared)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")


def main():
    here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    rows = load(here)
    bdp = first(rows, "bdp74", "paper", "irn")["bdp_packets"]
    bdp2 = first(rows, "bdp128", "paper", "irn")["bdp_packets"]

    def per_qp(name, accounting, engine):
        return first(rows, name, accounting, engine)["per_qp_bytes"]

    def shared(name, accounting):
        return int(first(rows, name, accounting, "fasr")["shared_bytes"])

    paper_lines = [  # (series, engine, label, style)
        ("bdp74", "irn", f"IRN, 20 B + 5 bitmaps of {bdp} bits", "-"),
        ("bdp128", "irn", f"IRN, 5 bitmaps of {bdp2} bits", "--"),
        ("bdp74", "srnic", "SRNIC, 12 B", "-"),
        ("bdp74", "fasr", f"FaSR, 1 B + {shared('bdp74', 'paper'):,} B", "-"),
    ]
    implemented_lines = [
        ("bdp74", "irn", f"IRN, {per_qp('bdp74', 'implemented', 'irn')} B (3 bitmaps + state)",
         "-"),
        ("bdp74", "srnic",
         f"SRNIC, {per_qp('bdp74', 'implemented', 'srnic')} B (NIC word + sender)", "-"),
        ("bdp74", "fasr",
         f"FaSR, {per_qp('bdp74', 'implemented', 'fasr')} B + "
         f"{shared('bdp74', 'implemented'):,} B pool", "-"),
        ("pool_iiid", "fasr",
         f"FaSR, III-D pool ({shared('pool_iiid', 'implemented')} B)", "--"),
    ]
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(13, 5.2), sharey=True)
    panel(ax, rows, "paper", paper_lines, "(a) the paper's accounting (section V-A): Fig. 8(b)")
    panel(ax2, rows, "implemented", implemented_lines,
          "(b) as implemented here, sender state included")
    fig.suptitle(f"SR memory overhead vs QPs (GBN: 0); BDP {bdp} packets "
                 "= 100 Gb/s x 6 us / 1 KB MTU", fontsize=11)
    fig.tight_layout()
    out = os.path.join(here, "memory_vs_qps.png")
    fig.savefig(out, dpi=120)
    print(out)


if __name__ == "__main__":
    main()
