#!/usr/bin/python3
"""Fig. 4(a): requests/s of 128 B RPCs, immediate vs coalesced software ACKs, with the ACKs and
CPU each request cost. Reads results.csv (and results_cfs.csv if present) in the given folder,
writes iops.png there and prints the medians."""
import csv
import statistics
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

CONFIGS = ["immediate", "coalesced", "paper_hint"]
LABELS = {"immediate": "immediate\n(1 ACK / WQE)", "coalesced": "coalesced\n(defaults)",
          "paper_hint": "coalesced,\nA.1.2 hint"}
PAPER_GAIN = 0.40  # the paper: coalescing gives +40% IOPS


def load(path):
    rows = {}
    for r in csv.DictReader(open(path)):
        rows.setdefault(r["config"], []).append(r)
    return rows


def column(rows, config, key):
    return [float(r[key]) for r in rows.get(config, [])]


def summary(rows, label):
    base = statistics.median(column(rows, "immediate", "requests_per_s"))
    print(f"{label}: median of {len(rows['immediate'])} runs each")
    for c in CONFIGS:
        iops = statistics.median(column(rows, c, "requests_per_s"))
        print(f"  {c:10s} {iops:9.0f} req/s ({iops / base - 1:+.1%} vs immediate)  "
              f"ACKs/req {statistics.median(column(rows, c, 'acks_per_request')):.3f}  "
              f"CPU us/req {statistics.median(column(rows, c, 'cpu_us_per_request')):.2f}  "
              f"RTT p50/p99 {statistics.median(column(rows, c, 'rtt_p50_us')):.0f}/"
              f"{statistics.median(column(rows, c, 'rtt_p99_us')):.0f} us  "
              f"tail probes {statistics.median(column(rows, c, 'tail_probes')):.0f}")


def panel_iops(ax, rows, title):
    base = statistics.median(column(rows, "immediate", "requests_per_s"))
    for i, c in enumerate(CONFIGS):
        v = column(rows, c, "requests_per_s")
        med = statistics.median(v)
        ax.bar(i, med / 1e3, color=["#999999", "#1f77b4", "#2ca02c"][i], alpha=0.8)
        ax.scatter([i] * len(v), [x / 1e3 for x in v], color="black", s=8, zorder=3)
        ax.text(i, med / 1e3, f"{med / base - 1:+.0%}", ha="center", va="bottom")
    ax.axhline(base * (1 + PAPER_GAIN) / 1e3, color="red", ls="--", lw=1,
               label="paper: immediate +40%")
    ax.set_xticks(range(len(CONFIGS)), [LABELS[c] for c in CONFIGS], fontsize=8)
    ax.set_ylabel("kRPC/s (median, dots: runs)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="lower right")


def panel_cost(ax, rows):
    x = range(len(CONFIGS))
    acks = [statistics.median(column(rows, c, "acks_per_request")) for c in CONFIGS]
    cpu = [statistics.median(column(rows, c, "cpu_us_per_request")) for c in CONFIGS]
    ax.bar([i - 0.2 for i in x], acks, width=0.4, color="#ff7f0e", label="ACKs / request")
    ax.set_ylabel("software ACKs per request (both ways)")
    ax2 = ax.twinx()
    ax2.bar([i + 0.2 for i in x], cpu, width=0.4, color="#9467bd", label="CPU us / request")
    ax2.set_ylabel("CPU us per request (both processes)")
    ax.set_xticks(list(x), [LABELS[c] for c in CONFIGS], fontsize=8)
    ax.set_title("what each request cost (medians)", fontsize=9)
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, fontsize=7, loc="upper right")


def main():
    here = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent)
    sets = [(load(here / "results.csv"), "SCHED_FIFO, one core per process")]
    if (here / "results_cfs.csv").exists():
        sets.append((load(here / "results_cfs.csv"), "default scheduler (shared cores)"))
    fig, axes = plt.subplots(1, len(sets) + 1, figsize=(5 * (len(sets) + 1), 4))
    for ax, (rows, label) in zip(axes, sets):
        sched = rows["immediate"][0]["sched"]
        summary(rows, f"{label} [{sched}]")
        panel_iops(ax, rows, f"128 B RPCs, depth 8, loopback: {label}")
    panel_cost(axes[-1], sets[0][0])
    fig.suptitle("Fig. 4(a): immediate vs coalesced software ACKs (bifrost-perf rpc_bw)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(here / "iops.png", dpi=120)


if __name__ == "__main__":
    main()
