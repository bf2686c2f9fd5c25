#!/usr/bin/python3
"""Fig. 4(a): requests/s of 128 B RPCs against the software ACK triggers (counts at 120 us,
timers at 32 WQEs), with the ACKs and CPU each request cost. Reads results.csv in the given
folder, writes iops.png there and prints the medians (min-max) per configuration."""
import csv
import statistics
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

COUNTS = ["immediate", "count4", "count8", "count16", "paper"]  # 1 .. 32 WQEs, 120 us
TIMERS = ["timer30", "timer60", "paper", "timer240", "timer480"]  # 32 WQEs
PAPER_GAIN = 0.40  # the paper: coalescing gives over 40% more IOPS than Immediate


def load(path):
    rows = {}
    for r in csv.DictReader(open(path)):
        rows.setdefault(r["config"], []).append(r)
    return rows


def column(rows, config, key):
    return [float(r[key]) for r in rows.get(config, [])]


def med(rows, config, key):
    return statistics.median(column(rows, config, key))


def summary(rows):
    base = med(rows, "immediate", "requests_per_s")
    print(f"median of {len(rows['immediate'])} runs each (min-max)")
    for c in rows:
        v = column(rows, c, "requests_per_s")
        print(f"  {c:10s} {med(rows, c, 'requests_per_s'):7.0f} ({min(v):.0f}-{max(v):.0f}) "
              f"req/s {med(rows, c, 'requests_per_s') / base - 1:+.0%}  "
              f"ACKs/req {med(rows, c, 'acks_per_request'):.3f}  "
              f"CPU us/req {med(rows, c, 'cpu_us_per_request'):.1f}  "
              f"RPC p50/p99 {med(rows, c, 'rtt_p50_us'):.0f}/{med(rows, c, 'rtt_p99_us'):.0f} us  "
              f"resent {med(rows, c, 'retransmitted_wqes'):.0f}  "
              f"tail probes {med(rows, c, 'tail_probes'):.0f}  "
              f"timeouts {med(rows, c, 'timeouts'):.0f}")


def label(config, rows):
    r = rows[config][0]
    if config == "immediate":
        return "immediate\n(1 WQE)"
    if config == "default":
        return "product\ndefault"
    return f"{r['ack_every']} WQEs\n{float(r['ack_timer_us']):.0f} us"


def panel_iops(ax, rows, configs, title):
    base = med(rows, "immediate", "requests_per_s")
    for i, c in enumerate(configs):
        v = column(rows, c, "requests_per_s")
        m = statistics.median(v)
        ax.bar(i, m / 1e3, color="#2ca02c" if c == "paper" else "#1f77b4", alpha=0.8)
        ax.scatter([i] * len(v), [x / 1e3 for x in v], color="black", s=8, zorder=3)
        ax.text(i, m / 1e3, f"{m / base - 1:+.0%}", ha="center", va="bottom", fontsize=8)
    ax.axhline(base * (1 + PAPER_GAIN) / 1e3, color="red", ls="--", lw=1,
               label="paper: immediate +40%")
    ax.set_xticks(range(len(configs)), [label(c, rows) for c in configs], fontsize=7)
    ax.set_ylabel("kRPC/s (median; dots: runs)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="lower right")


def panel_cost(ax, rows, configs):
    x = range(len(configs))
    acks = [med(rows, c, "acks_per_request") for c in configs]
    cpu = [med(rows, c, "cpu_us_per_request") for c in configs]
    ax.bar([i - 0.2 for i in x], acks, width=0.4, color="#ff7f0e", label="ACKs / request")
    ax.set_ylabel("software ACKs per request (both ways)")
    ax2 = ax.twinx()
    ax2.bar([i + 0.2 for i in x], cpu, width=0.4, color="#9467bd", label="CPU us / request")
    ax2.set_ylabel("CPU us per request (both processes)")
    ax.set_xticks(list(x), [label(c, rows).replace("\n", " ") for c in configs], fontsize=6,
                  rotation=45, ha="right")
    ax.set_title("what each request cost (medians)", fontsize=9)
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, fontsize=7, loc="upper right")


def main():
    here = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent)
    rows = load(here / "results.csv")
    summary(rows)
    setup = f"{rows['paper'][0]['qps']} connections x depth 8, {rows['paper'][0]['sched']}"
    everything = COUNTS + [t for t in TIMERS if t != "paper"] + (
        ["default"] if "default" in rows else [])
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.2))
    panel_iops(axes[0], rows, COUNTS, f"coalescing count (timer 120 us); {setup}")
    panel_iops(axes[1], rows, ["immediate"] + TIMERS, "coalescing timer (count 32 WQEs)")
    panel_cost(axes[2], rows, everything)
    fig.suptitle("Fig. 4(a): 128 B RPCs against the software ACK triggers, paper configuration "
                 "(bifrost-perf rpc_bw, soft RNIC on loopback)", fontsize=10)
    fig.tight_layout()
    fig.savefig(here / "iops.png", dpi=110)


if __name__ == "__main__":
    main()
