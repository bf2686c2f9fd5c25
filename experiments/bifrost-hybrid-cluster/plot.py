#!/usr/bin/python3
"""Plots results.csv of experiments/bifrost-hybrid-cluster: the throughput gap between the CX-4
and CX-5 hosts per system, against the CX-5 profile's DCQCN constants (mean over seeds, bars
from the smallest to the largest seed), beside the paper's two numbers."""
import csv
import os
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LABELS = {
    "plain_rc": "plain RC (NIC GBN + NIC DCQCN)",
    "bifrost_rc_dcqcn": "Bifröst RC + Swift, NIC DCQCN still on",
    "bifrost_rc": "Bifröst RC + Swift (NIC DCQCN off)",
    "bifrost_uc": "Bifröst UC + Swift (NIC DCQCN off)",
}
POINT_TEXT = {
    "same": "same\n300us/32KB", "T150us": "T 150us", "T55us": "T 55us", "T20us": "T 20us",
    "B256KB": "T 55us\nB 256KB", "B1MB": "T 55us\nB 1MB", "profiles": "profiles\n55us/10MB",
}


def main(folder):
    rows = list(csv.DictReader(open(os.path.join(folder, "results.csv"))))
    points = [p for p in POINT_TEXT if any(r["cx5_point"] == p for r in rows)]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for system, label in LABELS.items():
        mine = [r for r in rows if r["system"] == system]
        if not mine:
            continue
        gaps = []
        for p in points:
            here = [float(r["gap_pct"]) for r in mine if r["cx5_point"] == p or
                    r["cx5_increase_period"] == "n/a"]
            gaps.append((statistics.mean(here), min(here), max(here)))
        xs = range(len(points))
        means = [g[0] for g in gaps]
        err = [[g[0] - g[1] for g in gaps], [g[2] - g[0] for g in gaps]]
        style = "--" if mine[0]["cx5_increase_period"] == "n/a" else "-"
        ax.errorbar(xs, means, yerr=err, marker="o", linestyle=style, capsize=3, label=label)
    ax.axhline(21.8, color="grey", linestyle=":", label="paper: plain RC 21.8%")
    ax.axhline(1.3, color="black", linestyle=":", label="paper: Bifröst 1.3%")
    ax.set_xticks(range(len(points)))
    ax.set_xticklabels([POINT_TEXT[p] for p in points], fontsize=8)
    ax.set_xlabel("CX-5 profile's DCQCN increase timer T / byte counter B (CX-4: 300us / 32KB)")
    ax.set_ylabel("throughput gap |a - b| / mean, %")
    ax.set_title("Hybrid CX-4 / CX-5 cluster, 16:1 RPC incast, lossless")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(folder, "hybrid_cluster.png"), dpi=120)


if __name__ == "__main__":
    main(sys.argv[1])
