#!/usr/bin/python3
"""Plots the result files of a bifrost-sim run.

Reads flows.csv, fct_by_size.csv, throughput.csv and queues.csv from the output folder of
`bifrost-sim run scenario.toml --out DIR` and writes four PNG figures:

  fct_slowdown_by_size.png  p50 and p99 FCT slowdown per flow-size bucket
  fct_cdf.png               CDFs of flow completion time and of slowdown
  throughput.png            throughput of each sampled link over time
  queues.png                length of each sampled queue over time

The column layout of each file is documented in docs/scenarios.md.
"""

import argparse
import csv
import math
import os
import sys

REQUIRED = ("flows.csv", "fct_by_size.csv", "throughput.csv", "queues.csv")
# Beyond this many series a legend hides the data instead of explaining it.
MAX_LEGEND_ENTRIES = 12


class PlotError(Exception):
    """A problem with the input folder, reported without a traceback."""


def read_rows(folder, name, columns):
    path = os.path.join(folder, name)
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = [c for c in columns if c not in (reader.fieldnames or [])]
        if missing:
            raise PlotError(f"{path}: missing column(s) {', '.join(missing)}; "
                            f"found {', '.join(reader.fieldnames or ['nothing'])}")
        return list(reader)


def number(text):
    """A float from a CSV cell; empty cells (no value) become NaN."""
    return float(text) if text != "" else math.nan


def finish(fig, ax, path, empty, what):
    if empty:
        ax.text(0.5, 0.5, f"no {what} in this run", ha="center", va="center",
                transform=ax.transAxes)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def plot_slowdown_by_size(plt, folder, out):
    rows = read_rows(folder, "fct_by_size.csv", ["bucket", "flows", "p50", "p99"])
    rows = [r for r in rows if r["bucket"] != "all"]
    labels = [r["bucket"] for r in rows]
    p50 = [number(r["p50"]) for r in rows]
    p99 = [number(r["p99"]) for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4))
    x = range(len(labels))
    width = 0.38
    ax.bar([i - width / 2 for i in x], p50, width, label="p50")
    ax.bar([i + width / 2 for i in x], p99, width, label="p99")
    ax.set_xticks(list(x))
    ax.set_xticklabels([f"{lab}\n({r['flows']} flows)" for lab, r in zip(labels, rows)])
    ax.set_xlabel("flow size")
    ax.set_ylabel("FCT slowdown (FCT / ideal FCT)")
    has_data = any(not math.isnan(v) for v in p50 + p99)
    if has_data and min(v for v in p50 + p99 if not math.isnan(v)) > 0:
        ax.set_yscale("log")
        plain_numbers(ax.yaxis)
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    finish(fig, ax, os.path.join(out, "fct_slowdown_by_size.png"), not has_data, "finished flows")
    plt.close(fig)


def plain_numbers(axis):
    """Slowdowns read better as "2", "40" than as powers of ten on a log axis."""
    from matplotlib import ticker
    axis.set_major_formatter(ticker.FormatStrFormatter("%g"))
    axis.set_minor_formatter(ticker.FormatStrFormatter("%g"))


def cdf(values):
    values = sorted(values)
    n = len(values)
    return values, [(i + 1) / n for i in range(n)]


def plot_fct_cdf(plt, folder, out):
    rows = read_rows(folder, "flows.csv", ["fct_ps", "slowdown"])
    done = [r for r in rows if r["fct_ps"] != ""]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    if done:
        xs, ys = cdf(number(r["fct_ps"]) / 1e6 for r in done)
        left.step(xs, ys, where="post")
        xs, ys = cdf(number(r["slowdown"]) for r in done)
        right.step(xs, ys, where="post")
        for ax in (left, right):
            ax.set_xscale("log")
        plain_numbers(right.xaxis)
    left.set_xlabel("flow completion time (us)")
    right.set_xlabel("FCT slowdown")
    for ax in (left, right):
        ax.set_ylabel("fraction of finished flows")
        ax.grid(alpha=0.3)
    if len(done) < len(rows):
        fig.suptitle(f"{len(done)} of {len(rows)} flows finished")
    finish(fig, left, os.path.join(out, "fct_cdf.png"), not done, "finished flows")
    plt.close(fig)


def plot_series(plt, folder, out, name, columns, scale, ylabel, png, what):
    """One line per name in the first column: time (second column) against value (third)."""
    key, time_column, value_column = columns
    rows = read_rows(folder, name, columns)
    series = {}
    for r in rows:
        xs, ys = series.setdefault(r[key], ([], []))
        xs.append(number(r[time_column]) / 1e6)
        ys.append(number(r[value_column]) * scale)
    fig, ax = plt.subplots(figsize=(8, 4))
    for label, (xs, ys) in series.items():
        ax.plot(xs, ys, label=label, linewidth=1)
    ax.set_xlabel("time (us)")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    if 0 < len(series) <= MAX_LEGEND_ENTRIES:
        ax.legend(fontsize="small")
    finish(fig, ax, os.path.join(out, png), not series, what)
    plt.close(fig)


def main(argv):
    parser = argparse.ArgumentParser(
        description="Plot FCT slowdown, FCT CDFs, link throughput and queue lengths from the "
                    "output folder of a bifrost-sim run.",
        epilog="Writes fct_slowdown_by_size.png, fct_cdf.png, throughput.png and queues.png.")
    parser.add_argument("dir", help="output folder of `bifrost-sim run ... --out DIR`")
    parser.add_argument("--out", help="folder for the PNG files (default: DIR)")
    args = parser.parse_args(argv)

    folder = args.dir
    out = args.out or folder
    if not os.path.isdir(folder):
        raise PlotError(f"{folder} is not a folder")
    missing = [n for n in REQUIRED if not os.path.isfile(os.path.join(folder, n))]
    if missing:
        raise PlotError(f"{folder} lacks {', '.join(missing)}; expected the output folder of "
                        "`bifrost-sim run scenario.toml --out DIR`")
    os.makedirs(out, exist_ok=True)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    try:
        plot_slowdown_by_size(plt, folder, out)
        plot_fct_cdf(plt, folder, out)
        plot_series(plt, folder, out, "throughput.csv", ("link", "end_ps", "gbps"), 1.0,
                    "throughput (Gb/s)", "throughput.png", "throughput samples")
        plot_series(plt, folder, out, "queues.csv", ("queue", "time_ps", "bytes"), 1e-3,
                    "queue length (KB)", "queues.png", "queue samples")
    except ValueError as e:
        raise PlotError(f"a file in {folder} holds a value that is not a number: {e}") from e
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except PlotError as e:
        print(f"bifrost_plot: {e}", file=sys.stderr)
        sys.exit(2)
