"""Fig. 12, scaled: average and p99 FCT of inter-DC flows against the DCI link's length, one line
per scheme, and each scheme's change against PFC (results.csv of run.sh, written by
dci-workload-fct's summarize.py).

usage: /usr/bin/python3 plot.py RESULTS_CSV PNG
"""
import csv
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LABELS = {"pfc": "PFC", "bifrost": "Bifrost DCI", "cbfc": "CBFC-ideal", "swing": "SWING",
          "irn": "IRN (lossy)"}
CC = {"dcqcn": "with DCQCN", "nodcqcn": "without congestion control"}


def km(length):
    value = float(re.sub(r"[a-z]+$", "", length))
    return value if length.endswith("km") else value / 1e3


def main():
    results, png = sys.argv[1], sys.argv[2]
    rows = list(csv.DictReader(open(results)))
    ccs = [c for c in CC if any(r["cc"] == c for r in rows)]
    fig, axes = plt.subplots(len(ccs), 3, figsize=(13, 3.6 * len(ccs)), squeeze=False)
    for i, cc in enumerate(ccs):
        sel = [r for r in rows if r["cc"] == cc]
        workload = f"{sel[0]['cdf']} {float(sel[0]['load']):.0%}"
        for scheme in LABELS:
            pts = sorted((km(r["dci_length"]), r) for r in sel
                         if r["scheme"] == scheme and r["mean_fct_us"])
            if not pts:
                continue
            xs = [x for x, _ in pts]
            color = f"C{list(LABELS).index(scheme)}"
            # A run whose flows did not all finish: hollow markers (its statistics cover the
            # finished flows only).
            full = [r["finished"] == r["flows"] for _, r in pts]
            for ax, col in ((axes[i][0], "mean_fct_us"), (axes[i][1], "p99_fct_us")):
                ys = [float(r[col]) / 1e3 for _, r in pts]
                ax.plot(xs, ys, "-", color=color, label=LABELS[scheme])
                ax.scatter(xs, ys, color=[color if f else "white" for f in full],
                           edgecolors=color, zorder=3)
            if scheme != "pfc":
                for col, style in (("mean_vs_pfc", "-"), ("p99_vs_pfc", "--")):
                    vs = [(x, float(r[col].rstrip("%"))) for x, r in pts if r[col]]
                    if vs:
                        axes[i][2].plot([x for x, _ in vs], [v for _, v in vs], style,
                                        color=color, marker="o",
                                        label=f"{LABELS[scheme]} {col.split('_')[0]}")
        for j, title in enumerate(("average FCT (ms)", "p99 FCT (ms)",
                                   "change vs PFC (%): avg solid, p99 dashed")):
            ax = axes[i][j]
            ax.set_xscale("log")
            ax.set_xlabel("DCI link length (km)")
            ax.set_title(f"{title}\n{workload}, {CC[cc]}", fontsize=9)
            ax.grid(alpha=0.3)
        axes[i][2].axhline(0, color="black", linewidth=0.8)
        axes[i][0].legend(fontsize=7)
        axes[i][2].legend(fontsize=6, ncol=2)
    fig.suptitle("Inter-DC FCT against the DCI link's length (400 Gb/s DCI; paper Fig. 12); "
                 "hollow: not every flow finished", fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
