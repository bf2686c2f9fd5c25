#!/usr/bin/python3
"""Plots FaSR's shared pool usage at 1% loss vs QPs per server (the FaSR paper's Fig. 10).

Left: bytes in use per NIC, time average (mean over servers) and peak (max over servers), for
the 270 B pool and for the default 1,565 B pool (more room), with the 270 B
line. Right: go-back-N fallbacks per recovery episode and the fraction of time every unit of
the 270 B pool was taken.

Usage: plot.py [DIR]   (DIR holds results.csv; pool_usage.png is written there)
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

POOLS = [("270B", "270 B pool (6 units, 20 10-bit blocks)", "tab:red"),
         ("default", "1,565 B pool (20 units, 256 16-bit blocks)", "tab:blue")]


def main():
    here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "results.csv")) as f:
        rows = list(csv.DictReader(f))
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for pool, label, color in POOLS:
        sel = [r for r in rows if r["pool"] == pool]
        x = [int(r["qps_per_server"]) for r in sel]
        left.plot(x, [float(r["mean_bytes"]) for r in sel], "o-", color=color,
                  label=f"{label}: time average")
        left.plot(x, [int(r["peak_bytes"]) for r in sel], "s--", color=color,
                  label=f"{label}: peak")
        right.plot(x, [float(r["fallbacks_per_episode"]) for r in sel], "o-", color=color,
                   label=f"{label}: fallbacks per episode")
        right.plot(x, [float(r["units_exhausted_fraction"]) for r in sel], "s--", color=color,
                   label=f"{label}: time with no free unit")
    left.axhline(270, color="gray", lw=0.8, ls=":")
    left.text(2, 275, "270 B", color="gray", fontsize=8)
    left.set_xscale("log", base=2)
    left.set_xlabel("QPs per server (received)")
    left.set_ylabel("pool bytes in use per NIC")
    left.set_title("FaSR pool usage at 1% loss")
    left.legend(fontsize=7)
    right.set_xscale("log", base=2)
    right.set_xlabel("QPs per server (received)")
    right.set_ylabel("fraction")
    right.set_title("pool exhaustion")
    right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(here, "pool_usage.png"), dpi=120)


if __name__ == "__main__":
    main()
