#!/usr/bin/env python3
"""What holds the `paper` rows of Bifröst UC down at 1/1024 (Fig. 7), per request size.

Runs bifrost-transport-loss at the paper's setup (run.sh's `paper_setup`) for each size: the
`paper` configuration with its window trace (an RTT sample and the window after it, per ACK),
the same without loss, and the same with Swift's multiplicative decrease on loss (`--cc
swift-md`) instead of the paper's window-to-minimum. Writes results_paper_trace.csv: goodput
(Gb/s of 25) of the three, the loss counters, and from the trace the cuts to the minimum window,
the time between them, the time-weighted mean window and the shares of time below 16 and 64 KB.

  experiments/bifrost-loss-throughput/paper_trace.py BUILD_DIR [OUT_CSV]
Environment: DURATION_US (200000, as run.sh), LOSS (0.0009765625)."""
import csv
import os
import subprocess
import sys
import tempfile

SIZES = [1024, 4096, 16384, 65536, 262144, 1048576]
SETUP = ["--rate-gbps", "25", "--mtu", "1024", "--rtt-us", "6", "--loss-on", "data",
         "--response-bytes", "128", "--depth", "8"]
MIN_WINDOW = 4096  # the paper's minimum chunk (UNIT_SIZE), Swift's minimum window here


def run(tool, size, loss, extra, tmp, trace=None):
    out = os.path.join(tmp, "p.csv")
    cmd = [tool, "-q", "--config", "paper", "--mode", "uc", "--size", str(size), "--loss",
           str(loss), "--duration-us", os.environ.get("DURATION_US", "200000"), "--seed", "1",
           "--csv", out, *SETUP, *extra]
    if trace:
        cmd += ["--trace", trace]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return next(csv.DictReader(open(out)))


def window_stats(path):
    rows = [(float(r["time_us"]), int(r["window_bytes"])) for r in csv.DictReader(open(path))]
    rows = [r for r in rows if r[0] >= 500]  # the tool's warm-up: 500 us
    if len(rows) < 2:
        return {}
    span = rows[-1][0] - rows[0][0]
    area = sum((t1 - t0) * w0 for (t0, w0), (t1, _) in zip(rows, rows[1:]))
    below = lambda limit: sum(  # noqa: E731
        t1 - t0 for (t0, w0), (t1, _) in zip(rows, rows[1:]) if w0 < limit)
    cuts = [i for i in range(1, len(rows)) if rows[i][1] <= MIN_WINDOW < rows[i - 1][1]]
    peaks = [rows[i - 1][1] for i in cuts]
    return {"cuts_to_min": len(cuts),
            "us_between_cuts": f"{span / len(cuts):.1f}" if cuts else "",
            "mean_window_kb": f"{area / span / 1024:.1f}",
            "window_before_cut_kb": f"{sum(peaks) / len(peaks) / 1024:.1f}" if peaks else "",
            "time_below_16kb": f"{below(16384) / span:.2f}",
            "time_below_64kb": f"{below(65536) / span:.2f}"}


def main():
    build = sys.argv[1]
    out_csv = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "results_paper_trace.csv")
    tool = os.path.join(build, "tools", "bifrost-transport-loss")
    loss = float(os.environ.get("LOSS", "0.0009765625"))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in SIZES:
            print(f"== size {size}", file=sys.stderr)
            trace = os.path.join(tmp, "trace")
            paper = run(tool, size, loss, [], tmp, trace)
            (name,) = [n for n in os.listdir(tmp) if n.startswith(f"trace.uc-{size}-")]
            stats = window_stats(os.path.join(tmp, name))
            os.remove(os.path.join(tmp, name))
            lossless = run(tool, size, 0, [], tmp)
            md = run(tool, size, loss, ["--cc", "swift-md"], tmp)
            gbps = lambda r: f"{25 * float(r['goodput']):.1f}"  # noqa: E731
            rows.append({"size": size, "paper_gbps": gbps(paper),
                         "paper_lossless_gbps": gbps(lossless), "swift_md_gbps": gbps(md),
                         "losses_detected": paper["losses_detected"],
                         "retransmitted_wqes": paper["retransmitted_wqes"],
                         "timeouts": paper["timeouts"], "tail_probes": paper["tail_probes"],
                         **stats})
    with open(out_csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
