#!/usr/bin/python3
"""Plots timeline.csv of experiments/bifrost-nonstop-upgrade: the server link's throughput and
the mean RPC latency per ms through the upgrade, beside the two end states run alone."""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

RUNS = [("upgrade", "upgrade, paper config (Bifröst at 20 ms, PFC/DCQCN off at 40 ms)", "C0"),
        ("plain_rc_only", "plain RC + PFC + DCQCN throughout", "C1"),
        ("bifrost_only", "Bifröst UC, no PFC/DCQCN, throughout", "C2"),
        ("upgrade_default", "upgrade, Bifröst's product default", "C3")]


def main(folder):
    rows = list(csv.DictReader(open(os.path.join(folder, "timeline.csv"))))
    fig, axes = plt.subplots(3, 1, figsize=(9, 8), sharex=True)
    for run, label, color in RUNS:
        mine = [r for r in rows if r["run"] == run]
        ms = [int(r["ms"]) for r in mine]
        style = "-" if run.startswith("upgrade") else ":"
        axes[0].plot(ms, [float(r["server_gbps"]) for r in mine], style, color=color, label=label)
        for ax, key in ((axes[1], "bulk_mean_us"), (axes[2], "small_mean_us")):
            pts = [(int(r["ms"]), float(r[key])) for r in mine if r[key]]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, color=color)
    axes[0].set_ylabel("server link, Gb/s")
    axes[0].set_ylim(0, 110)
    axes[1].set_ylabel("512 KiB RPC, mean us")
    axes[2].set_ylabel("4 KiB RPC, mean us")
    axes[2].set_yscale("log")
    axes[2].set_xlabel("time, ms (RPCs by start time)")
    for ax in axes:
        for t in (20, 40):
            ax.axvline(t, color="grey", lw=0.8, ls="--")
    axes[0].legend(fontsize=7, loc="lower right")
    axes[0].set_title("Non-stop upgrade: plain RC -> Bifröst -> PFC and DCQCN off")
    fig.tight_layout()
    fig.savefig(os.path.join(folder, "upgrade.png"), dpi=120)


if __name__ == "__main__":
    main(sys.argv[1])
