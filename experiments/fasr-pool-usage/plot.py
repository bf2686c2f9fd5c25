#!/usr/bin/python3
"""Plots FaSR's shared pool usage at 1% loss vs QPs per server (the FaSR paper's Fig. 10).

Left: level-2 bitmap bytes in use per NIC (blocks x their entry bits), time average and peak,
against the 270 B the paper gives the bitmap pool: Fig. 10 plots bitmap usage. Middle: level-1
units in use. Right: go-back-N fallbacks per recovery episode and the time with no free unit.
One line per pool reading (make_scenario.py POOLS).

Usage: plot.py [DIR]   (DIR holds results.csv; pool_usage.png is written there)
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

POOLS = [("l2-270B", "270 B bitmap pool (120 10-bit blocks) + 20 units", "tab:green"),
         ("270B", "270 B for all (6 units, 20 10-bit blocks)", "tab:red"),
         ("default", "1,565 B (20 units, 256 16-bit blocks)", "tab:blue")]


def block_entry_bytes(row):
    # A block holds its bits and a next pointer wide enough to name any block
    # (rnic::recovery::fasr_block_entry_bits).
    blocks = int(row["blocks"])
    return (int(row["block_bits"]) + (blocks - 1).bit_length()) / 8


def main():
    here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "results.csv")) as f:
        rows = list(csv.DictReader(f))
    fig, (bitmap, units, exhaust) = plt.subplots(1, 3, figsize=(16, 4.5))
    for pool, label, color in POOLS:
        sel = [r for r in rows if r["pool"] == pool]
        if not sel:
            continue
        label = f"{label}, {sel[0]['servers']} servers"
        x = [int(r["qps_per_server"]) for r in sel]
        entry = [block_entry_bytes(r) for r in sel]
        bitmap.plot(x, [float(r["mean_blocks"]) * e for r, e in zip(sel, entry)], "o-",
                    color=color, label=f"{label}: time average")
        bitmap.plot(x, [int(r["peak_blocks"]) * e for r, e in zip(sel, entry)], "s--",
                    color=color, label=f"{label}: peak")
        units.plot(x, [float(r["mean_units"]) for r in sel], "o-", color=color,
                   label=f"{label}: time average")
        units.plot(x, [int(r["peak_units"]) for r in sel], "s--", color=color,
                   label=f"{label}: peak")
        exhaust.plot(x, [float(r["fallbacks_per_episode"]) for r in sel], "o-", color=color,
                     label=f"{label}: fallbacks per episode")
        exhaust.plot(x, [float(r["units_exhausted_fraction"]) for r in sel], "s--",
                     color=color, label=f"{label}: time with no free unit")
    bitmap.axhline(270, color="gray", lw=0.8, ls=":")
    bitmap.text(2, 275, "270 B", color="gray", fontsize=8)
    bitmap.set_ylabel("bitmap bytes in use per NIC")
    bitmap.set_title("FaSR bitmap (level-2) usage at 1% loss")
    units.set_ylabel("SR state units in use per NIC")
    units.set_title("level-1 units (38 B each)")
    exhaust.set_ylabel("fraction (symlog: the 320-server run's are small)")
    exhaust.set_yscale("symlog", linthresh=1e-4)
    exhaust.set_title("pool exhaustion")
    for ax in (bitmap, units, exhaust):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("QPs per server (received)")
        ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(os.path.join(here, "pool_usage.png"), dpi=120)


if __name__ == "__main__":
    main()
