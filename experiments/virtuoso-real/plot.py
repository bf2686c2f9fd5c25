#!/usr/bin/env python3
"""Virtuoso in the real runtime. Left: goodput over K paths per path rate and split (each run a
dot, the mean a line, the ideal K x rate dashed; "none" is the host's ceiling without tbf).
Right: the share of the bytes each path veth sent (gray 1/K, red the 0.8/K floor).
Usage: plot.py results.csv real.png"""
import csv
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = list(csv.DictReader(open(sys.argv[1])))
ks = sorted({int(r["paths"]) for r in rows})
rates = list(dict.fromkeys(r["rate_mbit"] for r in rows))
fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
series = [(rate, split) for rate in rates for split in ("probed", "equal")]
for n, (rate, split) in enumerate(series):
    pts = {k: [float(r["goodput_gbps"]) for r in rows
               if r["rate_mbit"] == rate and r["split"] == split and int(r["paths"]) == k]
           for k in ks}
    pts = {k: g for k, g in pts.items() if g}
    if not pts:
        continue
    color = f"C{rates.index(rate)}"
    style = "-" if split == "probed" else ":"
    label = f"{rate} Mbit/s paths, {split}" if rate != "none" else "no tbf (host ceiling)"
    ax.plot(list(pts), [statistics.mean(g) for g in pts.values()], style, marker="o",
            color=color, label=label)
    for k, g in pts.items():
        ax.scatter([k] * len(g), g, color=color, s=8)
    if rate != "none" and split == "probed":
        ax.plot(ks, [k * float(rate) / 1000 for k in ks], "--", color=color, alpha=0.5)
ax.set_xticks(ks)
ax.set_xlabel("paths K")
ax.set_ylabel("goodput (Gb/s)")
ax.set_title("write_bw, 64 KiB MP WRITEs (dashed: K x rate)")
ax.legend(fontsize=7)

offsets = {s: (i - (len(series) - 1) / 2) * 0.12 for i, s in enumerate(series)}
for rate, split in series:
    for k in ks:
        shares = []
        for r in rows:
            if r["rate_mbit"] == rate and r["split"] == split and int(r["paths"]) == k:
                b = [int(v) for v in r["path_bytes"].split()]
                shares += [v / sum(b) for v in b]
        if shares:
            bx.scatter([k + offsets[(rate, split)]] * len(shares), shares, s=10,
                       color=f"C{rates.index(rate)}", marker="o" if split == "probed" else "x")
for k in ks:
    bx.hlines(0.8 / k, k - 0.4, k + 0.4, colors="red", linestyles="dotted")
    bx.hlines(1.0 / k, k - 0.4, k + 0.4, colors="gray")
bx.set_xticks(ks)
bx.set_xlabel("paths K (o probed, x equal split)")
bx.set_ylabel("share of the bytes per path veth")
bx.set_title("bytes per path veth")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
