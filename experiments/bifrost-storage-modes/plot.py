#!/usr/bin/python3
"""Fig. 13: ARDMA and the three Bifröst modes, (a) latency of single 4 KB operations, (b) IOPS
of 4 KB operations, (c) throughput of 1 MB operations, Read and Write, each normalized to
ARDMA (medians over the runs). Usage: plot.py results.csv modes.png; prints the table."""
import csv
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

MODES = ["ardma", "hw_rc", "hw_r", "sw"]
NAMES = {"ardma": "ARDMA (proxy)", "hw_rc": "Bifröst HW R/C", "hw_r": "Bifröst HW R",
         "sw": "Bifröst SW"}
COLORS = {"ardma": "#7f7f7f", "hw_rc": "#1f77b4", "hw_r": "#2ca02c", "sw": "#d62728"}
# (panel title, operation suffix, metric, what it is)
PANELS = [("(a) latency, 4 KB, depth 1", "lat", "rtt_p50_us", "p50 RPC latency"),
          ("(b) IOPS, 4 KB, 8 conn. x depth 8", "iops", "requests_per_s", "requests/s"),
          ("(c) throughput, 1 MB, depth 8", "tput", "requests_per_s", "requests/s x 1 MB")]
OPS = ["read", "write"]


def main():
    src, png = sys.argv[1], sys.argv[2]
    runs = {}
    for r in csv.DictReader(open(src)):
        runs.setdefault(r["config"], []).append(r)

    def med(mode, op, key):
        return statistics.median(float(r[key]) for r in runs[f"{mode}/{op}"])

    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for ax, (title, kind, key, what) in zip(axes, PANELS):
        print(f"{title}: {what}, median (normalized to ARDMA)")
        for i, op in enumerate(OPS):
            base = med("ardma", f"{op}_{kind}", key)
            for j, mode in enumerate(MODES):
                v = med(mode, f"{op}_{kind}", key)
                ax.bar(i + (j - 1.5) * 0.2, v / base, width=0.2, color=COLORS[mode],
                       label=NAMES[mode] if i == 0 else None)
                cpu = med(mode, f"{op}_{kind}", "cpu_us_per_request")
                print(f"  {op:5s} {mode:6s} {v:10.1f} ({v / base:.3f})  CPU {cpu:.1f} us/op")
        ax.axhline(1, color="black", lw=0.8)
        ax.set_xticks(range(len(OPS)), [o.capitalize() for o in OPS])
        ax.set_ylabel(f"normalized {what} (ARDMA = 1)")
        ax.set_title(title, fontsize=9)
        ax.set_ylim(0, 1.6)
    axes[0].legend(fontsize=7, loc="upper left")
    fig.suptitle("Fig. 13: ARDMA and the Bifröst modes, block-storage-like RPCs "
                 "(bifrost-perf rpc_bw, soft RNIC on loopback, paper configuration)", fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
