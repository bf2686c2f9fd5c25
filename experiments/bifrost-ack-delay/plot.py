#!/usr/bin/python3
"""Fig. 16: p99 ACK delay (T3' - T2) and p99 local delay (T4 to processing) against the ACK
coalescing count, with the eq. (1) RTT p99, one panel per results file. Usage:
plot.py results.csv [more.csv ...] delays.png; prints the medians over the runs of each
configuration."""
import csv
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

COUNTS = ["immediate", "count4", "count8", "count16", "paper"]
SERIES = [("ack_delay_p99_us", "ACK delay T3' - T2, p99", "#1f77b4"),
          ("local_delay_p99_us", "local delay (T4 to processing), p99", "#ff7f0e"),
          ("eq1_rtt_p99_us", "eq. (1) RTT sample, p99", "#2ca02c")]
MEDIANS = [("ack_delay_p50_us", "ACK delay, p50", "#1f77b4"),
           ("local_delay_p50_us", "local delay, p50", "#ff7f0e")]


def load(src):
    rows = {}
    for r in csv.DictReader(open(src)):
        rows.setdefault(r["config"], []).append(r)
    return rows


def panel(ax, src):
    rows = load(src)

    def med(config, key):
        return statistics.median(float(r[key]) for r in rows[config])

    print(src)
    print("config     WQEs  ACK delay p50/p99 (us)  local delay p50/p99 (us)  eq1 RTT p50/p99 (us)")
    for c in rows:
        print(f"{c:10s} {rows[c][0]['ack_every']:>4s}  {med(c, 'ack_delay_p50_us'):8.0f} / "
              f"{med(c, 'ack_delay_p99_us'):8.0f}   {med(c, 'local_delay_p50_us'):8.0f} / "
              f"{med(c, 'local_delay_p99_us'):8.0f}   {med(c, 'eq1_rtt_p50_us'):6.1f} / "
              f"{med(c, 'eq1_rtt_p99_us'):6.1f}")
    counts = [c for c in COUNTS if c in rows]
    x = [int(rows[c][0]["ack_every"]) for c in counts]
    for key, label, color in SERIES:
        ax.plot(x, [med(c, key) for c in counts], "o-", color=color, label=label)
        for c, xi in zip(counts, x):
            ax.scatter([xi] * len(rows[c]), [float(r[key]) for r in rows[c]], color=color, s=6,
                       alpha=0.5)
    for key, label, color in MEDIANS:
        ax.plot(x, [med(c, key) for c in counts], "s--", color=color, label=label, alpha=0.6)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(x, [str(v) for v in x])
    ax.set_xlabel("ACK coalescing count (WQEs per ACK; timer 120 us)")
    ax.set_ylabel("microseconds (median of runs; dots: runs)")
    qps = rows[counts[0]][0]["qps"]
    ax.set_title(f"{qps} connection{'s' if qps != '1' else ''} x depth 8", fontsize=9)
    ax.legend(fontsize=7)


def main():
    sources, png = sys.argv[1:-1], sys.argv[-1]
    fig, axes = plt.subplots(1, len(sources), figsize=(6.5 * len(sources), 4.2), squeeze=False)
    for ax, src in zip(axes[0], sources):
        panel(ax, src)
    fig.suptitle("Fig. 16: ACK and local delay vs ACK coalescing, paper configuration "
                 "(bifrost-perf rpc_bw, 128 B RPCs, soft RNIC on loopback)", fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
