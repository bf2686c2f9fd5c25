"""Fig. 13, scaled: average and p99 FCT of inter-DC flows per scheme, FB_Hadoop and WebSearch
at each load; one row with DCQCN (the paper's setup) and one without (results.csv of run.sh).

usage: /usr/bin/python3 plot.py RESULTS_CSV PNG LENGTH
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LABELS = {"pfc": "PFC", "bifrost": "Bifrost DCI", "cbfc": "CBFC-ideal", "swing": "SWING",
          "irn": "IRN (lossy)"}
CDFS = {"fb_hadoop": "FB_Hadoop", "websearch": "WebSearch"}
CC = {"dcqcn": "with DCQCN", "nodcqcn": "without congestion control"}


def main():
    results, png, length = sys.argv[1], sys.argv[2], sys.argv[3]
    rows = [r for r in csv.DictReader(open(results)) if r["dci_length"] == length]
    ccs = [c for c in CC if any(r["cc"] == c for r in rows)]
    cdfs = [c for c in CDFS if any(r["cdf"] == c for r in rows)]
    panels = [(cdf, col, name) for cdf in cdfs
              for col, name in (("mean_fct_us", "average"), ("p99_fct_us", "p99"))]
    fig, axes = plt.subplots(len(ccs), len(panels), figsize=(3.4 * len(panels), 3.2 * len(ccs)),
                             squeeze=False)
    for i, cc in enumerate(ccs):
        for j, (cdf, col, name) in enumerate(panels):
            ax = axes[i][j]
            sel = [r for r in rows if r["cc"] == cc and r["cdf"] == cdf]
            loads = sorted({r["load"] for r in sel}, key=float)
            schemes = [s for s in LABELS if any(r["scheme"] == s for r in sel)]
            width = 0.8 / max(1, len(schemes))
            for k, scheme in enumerate(schemes):
                values, partial = [], []
                for load in loads:
                    m = [r for r in sel if r["scheme"] == scheme and r["load"] == load]
                    values.append(float(m[0][col]) / 1e3 if m and m[0][col] else 0.0)
                    partial.append(bool(m) and m[0]["finished"] != m[0]["flows"])
                offset = (k - (len(schemes) - 1) / 2) * width
                bars = ax.bar([x + offset for x in range(len(loads))], values, width,
                              label=LABELS[scheme], color=f"C{list(LABELS).index(scheme)}")
                # A run whose flows did not all finish: its statistics cover the finished ones.
                for bar, p in zip(bars, partial):
                    if p:
                        bar.set_hatch("xx")
                        bar.set_edgecolor("black")
            ax.set_xticks(range(len(loads)), [f"{float(l):.0%}" for l in loads])
            ax.set_title(f"{CDFS[cdf]}, {name} FCT\n{CC[cc]}", fontsize=9)
            if j == 0:
                ax.set_ylabel("FCT (ms)")
            ax.set_xlabel("load of the DCI link")
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"Inter-DC FCT, DCI link 400 Gb/s over {length} (paper: 600 km); "
                 "hatched: not every flow finished", fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
