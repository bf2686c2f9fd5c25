"""Collects one row per run of run.sh: FCT of the measured 8 KB latency flows (tag "latency";
the warm-up's, tag "warmup", are not counted), the receiver's throughput (mean over the run,
and the lowest 1 ms interval from the first measured flow on, which shows whether a long-link
queue ran dry), the DC 1 border switch's queue, drops and pauses.

usage: summarize.py CASE OUT_DIR RESULTS_CSV   (CASE: 9a, 9b, 9c, 9d as cases.py)
"""
import csv
import json
import math
import pathlib
import re
import sys

import cases


def nearest_rank(sorted_values, p):
    # The k-th smallest, k = max(1, ceil(p/100 n)), as bifrost's own statistics.
    k = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[k - 1]


LONG_RATE_BPS = 100e9
# Per case: the column that names a run's point.
POINT_COLUMN = {"9a": "bandwidth_flow_size", "9b": "bandwidth_flows", "9c": "intra_dc",
                "9d": "bandwidth_flows"}
# The bandwidth flows' bottleneck in every case: host 4's link (C in topologies A and B, E in C).
RECEIVER_LINK = "dc1.leaf0->h4"
SLOT_PS = 10 * 10**6        # Bifrost's T
PAUSE_BYTES = 64            # the paper's count (section IV-C 3)
PAUSE_WIRE_BYTES = 64 + 20  # with the preamble and inter-frame gap


def long_link_pause_frames(run_dir, simulated_ps, links):
    """Pause frames sent over the long links towards DC 0 (pauses.csv `frames` at the gates of
    dc0.border's long-link egresses, or of DC 0's relays with SWING; the two parallel links
    share one gate name, so the figures are per link on average), as frames per slot T and as
    a share of one 100 Gb/s link over the run, counting 64 bytes a frame as the paper does
    (section IV-C 3: "at most 0.05%") and 84 with the preamble and gap."""
    frames = 0
    with open(run_dir / "pauses.csv") as f:
        for r in csv.DictReader(f):
            if re.fullmatch(r"dc0\.border(/swing\d+)?->dc1\.border(/swing\d+)?/prio\d+",
                            r["port"]):
                frames += int(r["frames"])
    per_link = frames / links
    seconds = simulated_ps / 1e12
    share = lambda size: round(100 * per_link * size * 8 / (LONG_RATE_BPS * seconds), 4)
    return {"long_link_pause_frames": frames,
            "pause_frames_per_slot": round(per_link / (simulated_ps / SLOT_PS), 3),
            "pause_bw_pct_64B": share(PAUSE_BYTES),
            "pause_bw_pct_wire": share(PAUSE_WIRE_BYTES)}


def row(case, run_dir, scheme, point):
    fcts = []
    total = 0
    first_start = None
    with open(run_dir / "flows.csv") as f:
        for r in csv.DictReader(f):
            if r["tag"] != "latency":
                continue
            total += 1
            start = int(r["start_ps"])
            first_start = start if first_start is None else min(first_start, start)
            if r["fct_ps"]:
                fcts.append(int(r["fct_ps"]) / 1e6)
    fcts.sort()
    summary = json.loads((run_dir / "summary.json").read_text())
    # Mean over the run of the receiver's link (the whole run, including the start-up).
    receiver = summary["throughput"].get(RECEIVER_LINK, {}).get("mean_gbps")
    # Whole intervals only: the last one may be cut short by the end of the run.
    interval = None
    window = []
    with open(run_dir / "throughput.csv") as f:
        for r in csv.DictReader(f):
            if r["link"] != RECEIVER_LINK:
                continue
            start, end = int(r["start_ps"]), int(r["end_ps"])
            interval = interval or end - start
            if first_start is not None and start >= first_start and end - start == interval:
                window.append(float(r["gbps"]))
    border = [q for name, q in summary["queues"].items() if name.startswith("dc1.border:")]
    return {
        "scheme": scheme,
        POINT_COLUMN[case]: int(point) if POINT_COLUMN[case] == "bandwidth_flows" else point,
        "latency_flows": total,
        "finished": len(fcts),
        "mean_fct_us": round(sum(fcts) / len(fcts), 1) if fcts else "",
        "p50_fct_us": round(nearest_rank(fcts, 50), 1) if fcts else "",
        "p99_fct_us": round(nearest_rank(fcts, 99), 1) if fcts else "",
        "p999_fct_us": round(nearest_rank(fcts, 99.9), 1) if fcts else "",
        "receiver_gbps": round(receiver, 2) if receiver is not None else "",
        "receiver_min_gbps": round(min(window), 2) if window else "",
        "dc1_border_max_queue_mb": round(max(q["max_bytes"] for q in border) / 1e6, 2),
        "dc1_border_mean_queue_mb": round(max(q["mean_bytes"] for q in border) / 1e6, 2),
        "drops": summary["drops"]["total"],
        "pauses": summary["pauses"]["count"],
        **long_link_pause_frames(run_dir, summary["simulated_ps"], cases.CASES[case][2]),
        "wall_s": round(summary["wall_seconds"], 1),
    }


def main():
    case, out, results = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3]
    points = cases.CASES[case][1]
    rows = []
    for run_dir in sorted(p for p in out.iterdir() if p.is_dir()):
        m = re.fullmatch(r"(pfc|dci|swing)_(.+)", run_dir.name)
        if m and m.group(2) in points and (run_dir / "summary.json").exists():
            rows.append(row(case, run_dir, m.group(1), m.group(2)))
    order = {"pfc": 0, "dci": 1, "swing": 2}
    column = POINT_COLUMN[case]
    rows.sort(key=lambda r: (points.index(str(r[column])), order[r["scheme"]]))
    with open(results, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
