#!/usr/bin/python3
"""Plots the SR latency model (experiments/fasr-sr-latency): Fig. 9(a), latency per SR action and
engine; Fig. 9(c) / section V-D2, FaSR's expected and median latency vs its fast-path share, with
the paper's 5.5-7 ns band and the shares our simulations measured; Fig. 2, throughput at 1% loss
vs line rate when each loss pauses the receive pipeline for a software SR query.

Usage: plot.py [DIR]   (DIR holds actions.csv, expectation.csv, stalls.csv; writes sr_latency.png)
"""
import csv
import os
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import fasr_common  # noqa: E402

COLORS = {"irn": "tab:blue", "srnic": "tab:orange", "fasr": "tab:green"}


def read(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def measured_shares(experiments):
    """(label, fast share) from the simulations beside this folder, where their CSVs exist."""
    out = []
    path = os.path.join(experiments, "fasr-fast-path", "results.csv")
    if os.path.exists(path):
        for r in read(path):
            if r["series"] == "random" and float(r["loss"]) in (0.001, 0.01):
                out.append((f"1 QP, {float(r['loss']) * 100:g}% loss", float(r["fast_fraction"])))
    path = os.path.join(experiments, "fasr-pool-usage", "results.csv")
    if os.path.exists(path):
        for r in read(path):
            if r["pool"] == "default" and r["qps_per_server"] in ("8", "64", "512"):
                out.append((f"fat tree, {r['qps_per_server']} QPs/server",
                            float(r["fast_fraction"])))
    path = os.path.join(experiments, "fasr-paths-by-traffic", "results.csv")
    if os.path.exists(path):
        for r in read(path):
            if r["series"] == "websearch" and r["x"] in ("0.5", "0.9"):
                out.append((f"websearch load {r['x']}", float(r["fast_fraction"])))
    return out


def main(here):
    actions = read(os.path.join(here, "actions.csv"))
    expectation = read(os.path.join(here, "expectation.csv"))
    stalls = read(os.path.join(here, "stalls.csv"))
    fig, (a, c, b) = plt.subplots(1, 3, figsize=(17, 4.8))

    # Fig. 9(a): one group per action, one bar per engine (FaSR's two paths side by side).
    names = list(dict.fromkeys(r["action"] for r in actions))
    bars = [("irn", "-"), ("srnic", "-"), ("fasr", "fast"), ("fasr", "slow")]
    width = 0.2
    for k, (engine, path) in enumerate(bars):
        ys = [float(next(r["latency_ns"] for r in actions if r["engine"] == engine
                         and r["action"] == n and r["path"] == path)) for n in names]
        a.bar([i + (k - 1.5) * width for i in range(len(names))], ys, width,
              color=COLORS[engine], alpha=1.0 if path != "slow" else 0.5,
              label=engine if path == "-" else f"{engine} {path} path")
    a.set_xticks(range(len(names)), [n.replace("_", " ") for n in names], fontsize=8)
    a.set(yscale="log", ylabel="latency, ns", title="Fig. 9(a): SR action latency (model)")

    # Fig. 9(c) / V-D2: FaSR's expectation and median vs fast-path share.
    f = [float(r["fast_fraction"]) for r in expectation]
    c.plot(f, [float(r["expected_ns"]) for r in expectation], "-", color="tab:green",
           label="FaSR expected latency")
    c.plot(f, [float(r["median_ns"]) for r in expectation], "--", color="tab:green", alpha=0.6,
           drawstyle="steps-pre",
           label="FaSR median")
    c.axhspan(5.5, 7, color="gray", alpha=0.2, label="paper: expectation 5.5-7 ns")
    for label, share in measured_shares(os.path.dirname(here)):
        e = share * 5 + (1 - share) * 12
        c.plot([share], [e], "o", color="black", markersize=4)
        c.annotate(label, (share, e), fontsize=6, xytext=(3, 3), textcoords="offset points")
    c.set(xlabel="fast-path share of SR actions", ylabel="ns",
          title="FaSR SR latency vs fast-path share (dots: our runs)")

    # Fig. 2: throughput at 1% loss vs line rate.
    for query, per_loss, style, label in (("1400", "1", "o-", "one 1.4 us query per loss (Fig. 2)"),
                                          ("1200", "2", "s--",
                                           "SRNIC: two 1.2 us queries per loss (V-A)")):
        pts = [(int(r["line_gbps"]), 100 * float(r["throughput_fraction"])) for r in stalls
               if r["query_ns"] == query and r["queries_per_loss"] == per_loss
               and float(r["loss"]) == 0.01]
        b.plot(*zip(*sorted(pts)), style, color="tab:orange", label=label)
    b.plot([400], [60], "*", color="black", markersize=10, label="paper: up to 40% lost at 400G")
    b.plot([100], [75], "P", color="black", markersize=8,
           label="paper Fig. 7(a): SRNIC loses 25% at 100G")
    b.set(xscale="log", xlabel="line rate, Gb/s", ylabel="throughput, % of line rate",
          ylim=(0, 100), title="Fig. 2: software SR query at 1% loss (model)")
    fasr_common.finish(fig, (a, c, b), here, "sr_latency.png", legend_size=7)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
