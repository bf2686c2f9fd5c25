"""Average and p99 FCT of the 8 KB latency flows against the number of bandwidth flows, PFC vs
Bifrost DCI vs SWING on the long links (results.csv of run.sh).

usage: /usr/bin/python3 plot.py RESULTS_CSV PNG
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    results, png = sys.argv[1], sys.argv[2]
    rows = list(csv.DictReader(open(results)))
    flows = sorted({int(r["bandwidth_flows"]) for r in rows})
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5), sharey=True)
    for ax, column, title in ((axes[0], "mean_fct_us", "average"), (axes[1], "p99_fct_us", "p99")):
        schemes = [s for s in (("pfc", "PFC"), ("dci", "Bifrost DCI"), ("swing", "SWING"))
                   if any(r["scheme"] == s[0] for r in rows)]
        width = 0.8 / len(schemes)
        for i, (scheme, label) in enumerate(schemes):
            values = []
            for n in flows:
                match = [r for r in rows if r["scheme"] == scheme and int(r["bandwidth_flows"]) == n]
                values.append(float(match[0][column]) if match and match[0][column] else 0.0)
            offset = (i - (len(schemes) - 1) / 2) * width
            ax.bar([x + offset for x in range(len(flows))], values, width, label=label)
        ax.set_xticks(range(len(flows)), [str(n) for n in flows])
        ax.set_xlabel("bandwidth flows")
        ax.set_title(f"{title} FCT of 8 KB flows")
    axes[0].set_ylabel("FCT (us), 150 us one-way propagation included")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(png, dpi=120)


if __name__ == "__main__":
    main()
