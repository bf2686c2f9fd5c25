#!/usr/bin/python3
"""Plots results.csv of experiments/fasr-message-rate: messages per second and goodput vs
message size for the WQE-fetch model, with the paper's Fig. 8(a) numbers (6.2 Mops FaSR,
6.3 Mops CX6, 6.8 Mops bound) marked.

Usage: plot.py [DIR]"""
import csv
import os
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import fasr_common  # noqa: E402


def main(here):
    with open(os.path.join(here, "results.csv")) as f:
        rows = list(csv.DictReader(f))
    fig, (ops, gbps) = plt.subplots(1, 2, figsize=(11, 4.2))
    for (batch, rtt), style in ((("8", "1.2"), "o-"), (("8", "1.176"), "--"),
                                (("16", "1.2"), ":"), (("4", "1.2"), "-.")):
        sel = [r for r in rows if r["batch"] == batch and r["round_trip_us"] == rtt]
        x = [int(r["message_bytes"]) for r in sel]
        label = f"model: {batch} WQEs per {rtt} us"
        ops.plot(x, [float(r["mops"]) for r in sel], style, label=label)
        gbps.plot(x, [float(r["goodput_gbps"]) for r in sel], style, label=label)
    for value, text in ((6.2, "paper: FaSR 6.2"), (6.3, "paper: CX6 6.3"),
                        (6.8, "paper: FaSR bound 6.8")):
        ops.axhline(value, color="gray", lw=0.6, ls=":")
        ops.text(2, value + 0.1, text, fontsize=7, color="gray")
    ops.set(xscale="log", xlabel="message size, bytes", ylabel="Mops",
            title="Fig. 8(a): message rate (model)")
    gbps.set(xscale="log", xlabel="message size, bytes", ylabel="goodput, Gb/s",
             title="Fig. 8(a): throughput (model, 100 Gb/s, MTU 1 KB)")
    fasr_common.finish(fig, (ops, gbps), here, "message_rate.png", legend_size=7)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
