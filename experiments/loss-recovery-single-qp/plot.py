#!/usr/bin/python3
"""Plots goodput vs loss per engine from results.json, with the FaSR paper's points as markers.

Usage: plot.py [DIR]   (DIR holds results.json and paper.json; the PNG is written there)
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"gbn": "tab:red", "irn": "tab:blue", "srnic": "tab:green", "fasr": "tab:purple"}


def main():
    here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "results.json")) as f:
        results = json.load(f)["series"]
    with open(os.path.join(here, "paper.json")) as f:
        paper = json.load(f)

    fig, ax = plt.subplots(figsize=(10, 4.8))
    lines = [("main", "gbn", "GBN (QP timeout 8: 1.05 ms)", "-"),
             ("main", "irn", "IRN (RTO 100/320 us)", "-"),
             ("pipeline", "srnic", "SRNIC + receive pipeline", "-"),
             ("main", "srnic", "SRNIC without pipeline (= IRN)", ":")]
    for series, engine, label, style in lines:
        pts = sorted((p["loss"], p["goodput_fraction"]) for p in results[series]
                     if p["engine"] == engine and p["loss"] > 0)
        if not pts:
            continue
        ax.plot([x for x, _ in pts], [100 * y for _, y in pts], style, marker="o", ms=4,
                color=COLORS[engine], label=f"bifrost {label}")
    for p in paper["points"]:
        marker = "^" if p.get("at_least") else "s"
        size = 14 if p["engine"] == "irn" else 9  # IRN and FaSR share a point: nest them
        ax.plot([p["loss"]], [100 * p["goodput_fraction"]], marker, ms=size, mfc="none", mew=2,
                color=COLORS[p["engine"]],
                label=f"paper: {p['label']}" + (" (lower bound)" if p.get("at_least") else ""))
    ax.set_xscale("log")
    ax.set_xlabel("random loss per packet, each direction")
    ax.set_ylabel("goodput (% of 100 Gb/s line rate)")
    ax.set_ylim(0, 100)
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title("One RC QP, 8 KB WRITEs, 100 Gb/s, RTT 6 us, MTU 1024")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    fig.tight_layout()
    out = os.path.join(here, "goodput_vs_loss.png")
    fig.savefig(out, dpi=120)
    print(out)


if __name__ == "__main__":
    main()
