#!/usr/bin/python3
"""Fig. 6 of the Bifröst paper: (a) single-thread RPC throughput and (b) CPU per request size,
ARDMA (proxy: large requests pulled by RDMA READ), its WRITE variant, Bifröst RC, Bifröst UC
and kernel TCP (medians over the runs). (b) plots the
software's CPU per GB, both sides: an events run's CPU times the transport's and the
benchmark's sampled share of each process's CPU in the profile run of the same stack, MTU, size
and repetition (attribution.csv, from attribute.py): the part a hardware NIC would not take.
Usage: plot.py results.csv attribution.csv single_core.png; prints the tables the README
quotes."""
import csv
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

STACKS = ["ardma", "ardma_write", "bifrost_rc", "bifrost_uc", "kernel_tcp"]
NAMES = {"ardma": "ARDMA (proxy, READ > 32 KB)", "ardma_write": "ARDMA (proxy, WRITE)",
         "bifrost_rc": "Bifröst (RC)", "bifrost_uc": "Bifröst (UC)", "kernel_tcp": "kernel TCP"}
COLORS = {"ardma": "#000000", "ardma_write": "#9f9f9f", "bifrost_rc": "#1f77b4",
          "bifrost_uc": "#d62728", "kernel_tcp": "#2ca02c"}


def load(path):
    """{(stack, mode, mtu, size): [row, ...]}; kernel TCP's mode and MTU are '-'."""
    runs = {}
    for r in csv.DictReader(open(path)):
        stack, mode, mtu, size = r["config"].split("/")
        runs.setdefault((stack, mode, mtu, int(size)), []).append(r)
    return runs


def gbps(r, size):
    return float(r["requests_per_s"]) * size * 8 / 1e9


def core_share(r, side):
    return float(r[f"cpu_{side}_s"]) / float(r["seconds"])


def cpu_s_per_gb(r, size):
    gb = int(r["requests"]) * size / 1e9
    return (float(r["cpu_client_s"]) + float(r["cpu_server_s"])) / gb


def load_attribution(path):
    """{(events config, rep): {side: row}} from the profile runs' rows."""
    out = {}
    for r in csv.DictReader(open(path)):
        stack, mode, mtu, size = r["config"].split("/")
        out.setdefault((f"{stack}/events/{mtu}/{size}", r["rep"]), {})[r["side"]] = r
    return out


def software_s_per_gb(r, size, shares):
    """CPU seconds per GB spent in the transport and the benchmark, both sides."""
    sides = shares.get((r["config"], r["rep"]), {})
    if set(sides) != {"client", "server"}:
        return None
    gb = int(r["requests"]) * size / 1e9
    cpu = sum(float(r[f"cpu_{side}_s"]) * (float(sides[side]["transport"]) +
                                            float(sides[side]["app"])) / 100
              for side in ("client", "server"))
    return cpu / gb


def software_median(rows, size, shares):
    values = [v for v in (software_s_per_gb(r, size, shares) for r in rows) if v is not None]
    return statistics.median(values) if values else None


def describe(poll_rows, event_rows, size, shares):
    """One printed row: poll throughput; events CPU share per side, CPU/GB, software CPU/GB."""
    text = ""
    if poll_rows:
        text += f"  {median(poll_rows, lambda r: gbps(r, size)):6.2f} Gb/s"
    if event_rows:
        text += (f"  client {100 * median(event_rows, lambda r: core_share(r, 'client')):5.1f}%"
                 f"  server {100 * median(event_rows, lambda r: core_share(r, 'server')):5.1f}%"
                 f"  {median(event_rows, lambda r: cpu_s_per_gb(r, size)):6.2f} s/GB")
        soft = software_median(event_rows, size, shares)
        if soft is not None:
            text += f"  software {soft:6.3f} s/GB"
        text += f"  ({median(event_rows, lambda r: gbps(r, size)):.2f} Gb/s)"
    return text


def median(rows, f):
    return statistics.median(f(r) for r in rows)


def key_for(stack, mode, mtu, size):
    return (stack, "-", "-", size) if stack == "kernel_tcp" else (stack, mode, mtu, size)


def main():
    src, attribution, png = sys.argv[1:4]
    runs = load(src)
    shares = load_attribution(attribution)
    sizes = sorted({k[3] for k in runs})
    mtus = sorted({k[2] for k in runs if k[2] != "-"}, key=int)
    fig, (ta, ca) = plt.subplots(1, 2, figsize=(12, 4.2))
    for mtu in mtus:
        style = "-" if mtu == mtus[0] else "--"
        print(f"MTU {mtu}: Gb/s (poll) | client, server % of a core (events) | CPU s/GB "
              "both sides (events)")
        for stack in STACKS:
            if stack == "kernel_tcp" and mtu != mtus[0]:
                continue
            t_rows = [runs.get(key_for(stack, "poll", mtu, s)) for s in sizes]
            c_rows = [runs.get(key_for(stack, "events", mtu, s)) for s in sizes]
            xs = [s for s, rows in zip(sizes, t_rows) if rows]
            if not xs and not any(c_rows):
                continue
            label = NAMES[stack] + ("" if stack == "kernel_tcp" else f", MTU {mtu}")
            ta.plot([x / 1024 for x in xs],
                    [median(rows, lambda r, s=s: gbps(r, s)) for s, rows in zip(sizes, t_rows)
                     if rows], style, marker="o", color=COLORS[stack], label=label)
            soft = [(s, software_median(rows, s, shares)) for s, rows in zip(sizes, c_rows)
                    if rows]
            soft = [(s, v) for s, v in soft if v is not None]
            if soft:
                ca.plot([s / 1024 for s, _ in soft], [v for _, v in soft], style, marker="o",
                        color=COLORS[stack], label=label)
            for s, tr, cr in zip(sizes, t_rows, c_rows):
                if tr or cr:
                    print(f"  {stack:11s} {s // 1024:5d} KB" + describe(tr, cr, s, shares))
    for ax, ylabel, title in (
            (ta, "throughput (Gb/s)", "(a) single-thread throughput (RDMA stacks spin)"),
            (ca, "transport + benchmark CPU (s per GB, both sides)",
             "(b) software CPU per GB (RDMA stacks sleep on events; perf samples)")):
        ax.set_xscale("log", base=2)
        if ax is ca:
            ax.set_yscale("log")
        ax.set_xlabel("request size (KB), 128 B responses, depth 8")
        ax.set_ylabel(ylabel)
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3)
    ta.legend(fontsize=7)
    fig.suptitle("Bifröst Fig. 6 in the real runtime: one connection, one core per side "
                 "(soft RNICs over UDP on loopback)", fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=120)


if __name__ == "__main__":
    main()
