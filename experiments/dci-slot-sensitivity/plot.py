"""Fig. 11: Bifrost DCI's average and p99 FCT of inter-DC flows against its time slot T,
with PFC as the reference line, and the buffer each T needs (H + k S, as the code derives it)
against PFC's XOFF + headroom (results.csv of run.sh).

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
    # One row of panels per (congestion control, length, workload).
    sets = sorted({(r["cc"], r["dci_length"], r["cdf"]) for r in rows})
    fig, axes = plt.subplots(len(sets), 3, figsize=(13, 3.6 * len(sets)), squeeze=False)
    for i, (cc, length, cdf) in enumerate(sets):
        sel = [r for r in rows if (r["cc"], r["dci_length"], r["cdf"]) == (cc, length, cdf)]
        dci = sorted(((float(r["slot_us"]), r) for r in sel
                      if r["scheme"] == "bifrost" and r["mean_fct_us"]), key=lambda x: x[0])
        pfc = [r for r in sel if r["scheme"] == "pfc" and r["mean_fct_us"]]
        xs = [x for x, _ in dci]
        workload = f"{sel[0]['cdf']} {float(sel[0]['load']):.0%}, {length}, " + (
            "DCQCN" if cc == "dcqcn" else "no CC")
        for ax, col, name in ((axes[i][0], "mean_fct_us", "average FCT (ms)"),
                              (axes[i][1], "p99_fct_us", "p99 FCT (ms)")):
            ax.plot(xs, [float(r[col]) / 1e3 for _, r in dci], "o-", color="C1",
                    label="Bifrost DCI")
            if pfc:
                ax.axhline(float(pfc[0][col]) / 1e3, color="C0", linestyle="--", label="PFC")
            ax.set_title(f"{name}\n{workload}", fontsize=9)
        ax = axes[i][2]
        ax.plot(xs, [int(r["buffer_bytes"]) / 1e6 for _, r in dci], "o-", color="C1",
                label="Bifrost H + k S (code)")
        ax.plot(xs, [int(r["delta_bytes"]) / 1e6 for _, r in dci], ":", color="C1",
                label="of which Delta")
        if pfc:
            ax.axhline(int(pfc[0]["buffer_bytes"]) / 1e6, color="C0", linestyle="--",
                       label="PFC XOFF + headroom")
        ax.set_title(f"long-haul buffer per port (MB)\n{length}", fontsize=9)
        for ax in axes[i]:
            ax.set_xscale("log")
            ax.set_xlabel("time slot T (us)")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
    fig.suptitle("Bifrost DCI's time slot T (paper Fig. 11), 400 Gb/s DCI link", fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
