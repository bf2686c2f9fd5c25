"""Average and p99 FCT of the 8 KB latency flows at each point of a case (the CSV's second
column: the number of bandwidth flows, their size, or case B's reading), PFC vs Bifrost DCI (vs
SWING) on the long links (results CSVs of run.sh). The first CSV gives the bars, any further
ones (other seeds) are drawn as dots on them.

usage: /usr/bin/python3 plot.py RESULTS_CSV [MORE_RESULTS_CSV ...] PNG
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def value(rows, scheme, point, column):
    key = list(rows[0])[1]
    match = [r for r in rows if r["scheme"] == scheme and r[key] == point]
    return float(match[0][column]) if match and match[0][column] else None


def main():
    *results, png = sys.argv[1:]
    runs = [list(csv.DictReader(open(path))) for path in results]
    rows = runs[0]
    key = list(rows[0])[1]
    flows = list(dict.fromkeys(r[key] for r in rows))  # in the CSV's order
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5), sharey=True)
    for ax, column, title in ((axes[0], "mean_fct_us", "average"), (axes[1], "p99_fct_us", "p99")):
        schemes = [s for s in (("pfc", "PFC"), ("dci", "Bifrost DCI"), ("swing", "SWING"))
                   if any(r["scheme"] == s[0] for r in rows)]
        width = 0.8 / len(schemes)
        for i, (scheme, label) in enumerate(schemes):
            offset = (i - (len(schemes) - 1) / 2) * width
            xs = [x + offset for x in range(len(flows))]
            values = [value(rows, scheme, n, column) or 0.0 for n in flows]
            bars = ax.bar(xs, values, width, label=label)
            for other in runs[1:]:
                dots = [(x, value(other, scheme, n, column)) for x, n in zip(xs, flows)]
                dots = [(x, v) for x, v in dots if v is not None]
                ax.plot([x for x, _ in dots], [v for _, v in dots], "o", ms=3,
                        color="black", markerfacecolor=bars.patches[0].get_facecolor())
        ax.set_xticks(range(len(flows)), flows)
        ax.set_xlabel(key.replace("_", " "))
        ax.set_title(f"{title} FCT of 8 KB flows")
    axes[0].set_ylabel("FCT (us), 400 us one way included")
    axes[0].legend(title="bars: first CSV, dots: others" if len(runs) > 1 else None,
                   title_fontsize="small", fontsize="small")
    fig.tight_layout()
    fig.savefig(png, dpi=120)


if __name__ == "__main__":
    main()
