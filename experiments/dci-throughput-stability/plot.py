"""Fig. 15, scaled: throughput of the DCI link (DC 0 -> DC 1) over time for each scheme; one
panel per congestion-control setting and DC 1 background load (series.csv and results.csv of
run.sh), the scheme's mean after the warm-up in the legend.

usage: /usr/bin/python3 plot.py SERIES_CSV RESULTS_CSV PNG LENGTH
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LABELS = {"pfc": "PFC", "bifrost": "Bifrost DCI", "cbfc": "CBFC-ideal", "swing": "SWING"}
COLORS = {"pfc": "C0", "bifrost": "C1", "cbfc": "C2", "swing": "C3"}  # as dci-workload-fct
CC = {"nodcqcn": "no CC", "dcqcn": "DCQCN"}


def main():
    series_csv, results_csv, png, length = sys.argv[1:5]
    series = [r for r in csv.DictReader(open(series_csv)) if r["dci_length"] == length]
    results = [r for r in csv.DictReader(open(results_csv)) if r["dci_length"] == length]
    ccs = [c for c in CC if any(r["cc"] == c for r in results)]
    loads = sorted({r["bg_load"] for r in results}, key=float)
    fig, axes = plt.subplots(len(loads), len(ccs), figsize=(6.2 * len(ccs), 2.6 * len(loads)),
                             squeeze=False, sharex=True)
    for i, load in enumerate(loads):
        for j, cc in enumerate(ccs):
            ax = axes[i][j]
            for scheme in LABELS:
                pts = [r for r in series
                       if r["cc"] == cc and r["bg_load"] == load and r["scheme"] == scheme]
                if not pts:
                    continue
                mean = [r["mean_gbps"] for r in results
                        if r["cc"] == cc and r["bg_load"] == load and r["scheme"] == scheme][0]
                ax.step([float(r["start_ms"]) for r in pts], [float(r["gbps"]) for r in pts],
                        where="post", lw=0.9, color=COLORS[scheme],
                        label=f"{LABELS[scheme]} (mean {float(mean):.0f})")
            ax.set_ylim(0, 420)
            ax.set_title(f"{CC[cc]}, DC 1 background {float(load):.0%} of host links", fontsize=9)
            ax.set_ylabel("DCI Gb/s")
            ax.legend(fontsize=7, loc="lower right")
            if i == len(loads) - 1:
                ax.set_xlabel("time (ms)")
    fig.suptitle(f"DCI link throughput, DC 0 -> DC 1 (400 Gb/s, {length}; paper: 600 km)\n"
                 "16 long flows + Poisson traffic inside DC 1; legend: mean after the warm-up",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
