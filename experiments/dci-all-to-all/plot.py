"""Fig. 14, scaled: average and p99 FCT of inter-DC, intra-DC and all flows per scheme under
all-to-all traffic (results.csv of run.sh); one row of panels per CDF and congestion control.

usage: /usr/bin/python3 plot.py RESULTS_CSV PNG LENGTH
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LABELS = {"pfc": "PFC", "bifrost": "Bifrost DCI", "cbfc": "CBFC-ideal", "swing": "SWING",
          "irn": "IRN (lossy)"}
CLASSES = {"inter": "inter-DC", "intra": "intra-DC", "all": "all flows"}
CDFS = {"fb_hadoop": "FB_Hadoop", "websearch": "WebSearch"}
CC = {"dcqcn": "DCQCN", "nodcqcn": "no CC"}


def main():
    results, png, length = sys.argv[1], sys.argv[2], sys.argv[3]
    rows = [r for r in csv.DictReader(open(results)) if r["dci_length"] == length]
    sets = [(cc, cdf) for cc in CC for cdf in CDFS
            if any(r["cc"] == cc and r["cdf"] == cdf for r in rows)]
    metrics = (("mean_fct_us", "average"), ("p99_fct_us", "p99"))
    fig, axes = plt.subplots(len(sets), 2, figsize=(9, 2.9 * len(sets)), squeeze=False)
    for i, (cc, cdf) in enumerate(sets):
        sel = [r for r in rows if r["cc"] == cc and r["cdf"] == cdf]
        schemes = [s for s in LABELS if any(r["scheme"] == s for r in sel)]
        width = 0.8 / max(1, len(schemes))
        for j, (col, name) in enumerate(metrics):
            ax = axes[i][j]
            for k, scheme in enumerate(schemes):
                values, partial = [], []
                for c in CLASSES:
                    m = [r for r in sel if r["scheme"] == scheme and r["flows_class"] == c]
                    values.append(float(m[0][col]) / 1e3 if m and m[0][col] else 0.0)
                    partial.append(bool(m) and m[0]["finished"] != m[0]["flows"])
                offset = (k - (len(schemes) - 1) / 2) * width
                bars = ax.bar([x + offset for x in range(len(CLASSES))], values, width,
                              label=LABELS[scheme], color=f"C{list(LABELS).index(scheme)}")
                for bar, p in zip(bars, partial):  # not every flow finished: hatched
                    if p:
                        bar.set_hatch("xx")
                        bar.set_edgecolor("black")
            ax.set_xticks(range(len(CLASSES)), list(CLASSES.values()))
            ax.set_title(f"{CDFS[cdf]}, {CC[cc]}: {name} FCT", fontsize=9)
            ax.set_ylabel("FCT (ms)")
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"All-to-all, 50 % inter-DC load of the DCI link (400 Gb/s, {length}; "
                 "paper: 600 km); hatched: not every flow finished", fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.97))  # room for the title
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
