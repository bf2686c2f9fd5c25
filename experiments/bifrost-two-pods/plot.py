#!/usr/bin/python3
"""Plots results.csv of experiments/bifrost-two-pods: goodput per server, intra-pod and inter-pod
stacked, for each transport and congestion control (groups) and network (bars)."""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

NETWORKS = [("pfc_everywhere", "PFC everywhere"), ("pfc_below_core", "PFC below the core"),
            ("lossy", "no PFC")]


def main(here):
    with open(os.path.join(here, "results.csv")) as f:
        rows = list(csv.DictReader(f))
    groups = sorted({(r["transport"], r["cc"]) for r in rows})
    fig, (ax, drops) = plt.subplots(1, 2, figsize=(12, 5.5))
    width = 0.8 / len(NETWORKS)
    for n, (network, label) in enumerate(NETWORKS):
        xs, intra, inter, dropped = [], [], [], []
        for g, (transport, cc) in enumerate(groups):
            row = next((r for r in rows if (r["transport"], r["cc"], r["network"]) ==
                        (transport, cc, network)), None)
            if row is None:
                continue
            xs.append(g + (n - 1) * width)
            intra.append(float(row["intra_gbps_per_server"]))
            inter.append(float(row["inter_gbps_per_server"]))
            dropped.append(int(row["drops"]))
        bars = ax.bar(xs, intra, width, label=f"{label}: intra-pod")
        ax.bar(xs, inter, width, bottom=intra, color=bars.patches[0].get_facecolor(), alpha=0.45,
               label=f"{label}: inter-pod")
        drops.bar(xs, dropped, width, label=label)
    names = [f"{t}\ncc {c}" for t, c in groups]
    for a in (ax, drops):
        a.set_xticks(range(len(groups)), names)
        a.grid(True, axis="y", alpha=0.3)
    ax.set(ylabel="goodput per server, Gb/s", ylim=(0, 105),
           title="512 KB RPCs, full mesh over two pods (Fig. 8)")
    ax.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.16))
    drops.set(ylabel="packets dropped (10 ms)", title="drops")
    drops.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(here, "two_pods.png"), dpi=110)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
