"""Throughput of the DCI link (DC 0 -> DC 1, the direction of the long flows) per run of run.sh:
mean, coefficient of variation, minimum and 5th percentile over the sampling intervals after the
warm-up, and each scheme's mean against PFC's and SWING's at the same set and background load.

usage: summarize.py OUT_DIR WARMUP RESULTS_CSV SERIES_CSV
       summarize.py --one RUN_DIR WARMUP      (one progress line, for run.sh)

WARMUP is a time such as "1ms": intervals starting before it are left out (the long flows start
together at 0 and fill the path first). Sets are folders <cc>_<length>, runs <scheme>_bg<load>.
"""
import csv
import json
import pathlib
import re
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from dci_common import log_counter, nearest_rank, run_dirs, write_csv  # noqa: E402

SCHEMES = ["pfc", "bifrost", "cbfc", "swing"]
DCI = "dc0.border->dc1.border"  # the long flows' direction of the two_dc DCI link
DCI_GBPS = 400.0
PAPER_VS = {"pfc": "+43.67%", "swing": "+6.51%"}  # Fig. 15, Bifrost's mean (section VI-B 5)
UNITS_PS = {"ps": 1, "ns": 10**3, "us": 10**6, "ms": 10**9, "s": 10**12}


def time_ps(text):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(ps|ns|us|ms|s)", text)
    if not m:
        raise SystemExit(f"bad time {text!r}: use e.g. 1ms")
    return round(float(m.group(1)) * UNITS_PS[m.group(2)])


def link_series(run_dir, link):
    """(start_ms, Gb/s) of every sampling interval of `link`, in time order."""
    with open(run_dir / "throughput.csv") as f:
        rows = [r for r in csv.DictReader(f) if r["link"] == link]
    if not rows:
        raise SystemExit(f"{run_dir}/throughput.csv has no samples of {link}")
    return [(int(r["start_ps"]) / 1e9, float(r["gbps"])) for r in rows]


def dci_series(run_dir):
    return link_series(run_dir, DCI)


def spine_means(run_dir, warmup_ps):
    """Mean Gb/s from DC 1's border to each of its 4 spines after the warm-up: where ECMP put
    the long flows (each of these links carries at most 100 Gb/s)."""
    means = []
    for s in range(4):
        g = [g for t, g in link_series(run_dir, f"dc1.border->dc1.spine{s}") if t * 1e9 >= warmup_ps]
        means.append(f"{statistics.fmean(g):.0f}")
    return "/".join(means)


def border_queue_kb(queues, switch, field, combine=sum):
    values = [q[field] or 0 for name, q in queues.items() if name.startswith(switch + ":")]
    return round(combine(values) / 1e3, 1) if values else ""


def stats(run_dir, warmup_ps):
    series = [g for t, g in dci_series(run_dir) if t * 1e9 >= warmup_ps]
    mean = statistics.fmean(series)
    ordered = sorted(series)
    log = (run_dir / "run.log").read_text() if (run_dir / "run.log").exists() else ""
    queues = json.loads((run_dir / "summary.json").read_text())["queues"]
    return {
        "intervals": len(series),
        "mean_gbps": round(mean, 1),
        "utilisation": f"{mean / DCI_GBPS:.1%}",
        "cv": round(statistics.pstdev(series) / mean, 3) if mean > 0 else "",
        "min_gbps": round(ordered[0], 1),
        "p5_gbps": round(nearest_rank(ordered, 5), 1),
        # Intervals in which the link was essentially idle (below 1 % of its rate).
        "idle_intervals": sum(1 for g in series if g < 0.01 * DCI_GBPS),
        # Bytes waiting in the two DCI switches (sums of their ports' time-averaged egress
        # queues; summary.json): upstream, DC 0's, where the long flows queue for the DCI link;
        # downstream, DC 1's, where they wait for DC 1's fabric. And DC 1's largest port queue.
        "up_queue_mean_kb": border_queue_kb(queues, "dc0.border", "mean_bytes"),
        "down_queue_mean_kb": border_queue_kb(queues, "dc1.border", "mean_bytes"),
        "down_queue_max_kb": border_queue_kb(queues, "dc1.border", "max_bytes", max),
        "dc1_border_to_spines_gbps": spine_means(run_dir, warmup_ps),
        "pauses": log_counter(log, "pause episodes"),
        "drops": log_counter(log, "drops"),
    }


def one(run_dir, warmup):
    s = stats(pathlib.Path(run_dir), time_ps(warmup))
    print(f"  DCI {DCI}: mean {s['mean_gbps']} Gb/s ({s['utilisation']}), CV {s['cv']}, "
          f"min {s['min_gbps']} Gb/s, idle intervals {s['idle_intervals']}/{s['intervals']}")


def runs(out):
    return run_dirs(out, r"([a-z]+)_bg([0-9.]+)", "throughput.csv")


def add_ratios(rows):
    key = lambda r: (r["cc"], r["dci_length"], r["bg_load"])  # noqa: E731
    for base in ("pfc", "swing"):
        ref = {key(r): r["mean_gbps"] for r in rows if r["scheme"] == base}
        for r in rows:
            b = ref.get(key(r))
            r[f"mean_vs_{base}"] = (f"{100 * (r['mean_gbps'] / b - 1):+.1f}%"
                                    if b and r["scheme"] != base else "")
            r[f"paper_vs_{base}"] = PAPER_VS[base] if r["scheme"] == "bifrost" else ""


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--one":
        return one(sys.argv[2], sys.argv[3])
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    out, warmup_ps = pathlib.Path(sys.argv[1]), time_ps(sys.argv[2])
    rows, series = [], []
    for run_dir, cc, length, scheme, bg in runs(out):
        rows.append({"cc": cc, "dci_length": length, "scheme": scheme, "bg_load": bg,
                     **stats(run_dir, warmup_ps)})
        series += [{"cc": cc, "dci_length": length, "scheme": scheme, "bg_load": bg,
                    "start_ms": round(t, 3), "gbps": round(g, 2)} for t, g in dci_series(run_dir)]
    if not rows:
        raise SystemExit(f"no runs in {out}")
    add_ratios(rows)
    order = lambda r: (r["cc"] != "nodcqcn", r["dci_length"], float(r["bg_load"]),  # noqa: E731
                       SCHEMES.index(r["scheme"]))
    rows.sort(key=order)
    series.sort(key=lambda r: (order(r), r["start_ms"]))
    write_csv(sys.argv[3], rows)
    write_csv(sys.argv[4], series)


if __name__ == "__main__":
    main()
