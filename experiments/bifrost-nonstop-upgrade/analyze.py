#!/usr/bin/python3
"""experiments/bifrost-nonstop-upgrade: reduces the runs of run.sh to results.csv (one row per
run and phase) and timeline.csv (the server link's throughput and the RPC latencies per ms).

Phases are those of the upgrade run: plain RC with PFC and DCQCN (2-20 ms; the first 2 ms fill
the pipe), Bifröst with PFC and DCQCN still on (20-40 ms), Bifröst alone (40-60 ms). The two
baselines are cut into the same windows. An RPC belongs to the phase it started in."""
import csv
import json
import os
import statistics
import sys

PHASES = [("plain_rc", 2, 20), ("bifrost_lossless", 20, 40), ("bifrost_lossy", 40, 60)]
SWITCHES_MS = (20, 40)
SERVER_LINK = "switch->h0"
RUNS = ("upgrade", "plain_rc_only", "bifrost_only", "upgrade_default", "bifrost_only_default",
        "bifrost_only_base20us", "bifrost_only_base10us")


def nearest_rank(values, p):
    values = sorted(values)
    return values[max(0, -(-len(values) * p // 100) - 1)] if values else float("nan")


def load(folder):
    gbps = {}
    with open(os.path.join(folder, "throughput.csv")) as f:
        for r in csv.DictReader(f):
            if r["link"] == SERVER_LINK:
                gbps[int(r["start_ps"]) // 10**9] = float(r["gbps"])
    rpcs = []
    with open(os.path.join(folder, "flows.csv")) as f:
        for r in csv.DictReader(f):
            rpcs.append({"tag": r["tag"], "start_ms": int(r["start_ps"]) / 1e9,
                         "fct_us": int(r["fct_ps"]) / 1e6 if r["fct_ps"] else None})
    with open(os.path.join(folder, "closed_loop.csv")) as f:
        loops = list(csv.DictReader(f))
    with open(os.path.join(folder, "summary.json")) as f:
        summary = json.load(f)
    return gbps, rpcs, loops, summary


def pauses_until(runs, run, ms, summary):
    """PFC pauses (count, paused us) from 0 to `ms`: run.sh's run cut there, or the whole run."""
    cut = os.path.join(runs, f"{run}_cut{ms}ms", "summary.json")
    if ms >= 60:
        p = summary["pauses"]
    elif os.path.exists(cut):
        with open(cut) as f:
            p = json.load(f)["pauses"]
    else:
        return None
    return p["count"], p["paused_ps"] / 1e6


def phase_row(run, phase, lo, hi, gbps, rpcs, loops, summary, runs):
    samples = [gbps.get(ms, 0.0) for ms in range(lo, hi)]
    mean = statistics.mean(samples)
    row = {"run": run, "phase": phase, "from_ms": lo, "to_ms": hi,
           "server_gbps": f"{mean:.2f}",
           "jitter_pct": f"{100 * statistics.pstdev(samples) / mean:.2f}",
           "min_1ms_gbps": f"{min(samples):.2f}"}
    for tag in ("bulk", "small"):
        fcts = [r["fct_us"] for r in rpcs if r["tag"] == tag and lo <= r["start_ms"] < hi]
        row[f"{tag}_rpcs"] = len(fcts)
        row[f"{tag}_mean_us"] = f"{statistics.mean(fcts):.1f}"
        row[f"{tag}_p99_us"] = f"{nearest_rank(fcts, 99):.1f}"
    row["issued"] = sum(int(l["issued"]) for l in loops)
    row["completed"] = sum(int(l["completed"]) for l in loops)
    row["failed"] = sum(int(l["failed"]) for l in loops)
    row["run_drops"] = summary["drops"]["total"]
    row["run_pauses"] = summary["pauses"]["count"]
    # This phase's pauses: from its start (0 for the first) to its end, by cut runs.
    start = pauses_until(runs, run, lo, summary) if lo > 2 else (0, 0.0)
    end = pauses_until(runs, run, hi, summary)
    row["phase_pauses"] = end[0] - start[0] if start and end else ""
    row["phase_paused_us"] = f"{end[1] - start[1]:.1f}" if start and end else ""
    # The NICs' recovery counters over the whole run (summary.json "nic"), not per phase.
    for k in ("retransmitted", "timeouts", "naks_sent", "delayed_acks", "cnps_sent"):
        row[f"run_nic_{k}"] = summary.get("nic", {}).get(k, "")
    return row


def main(runs, out):
    rows, timeline = [], []
    for run in RUNS:
        gbps, rpcs, loops, summary = load(os.path.join(runs, run))
        unfinished = [r for r in rpcs if r["fct_us"] is None]
        if unfinished:
            sys.exit(f"{run}: {len(unfinished)} RPCs never completed")
        for phase, lo, hi in PHASES:
            rows.append(phase_row(run, phase, lo, hi, gbps, rpcs, loops, summary, runs))
        for ms in range(0, 60):
            small = [r["fct_us"] for r in rpcs if r["tag"] == "small" and ms <= r["start_ms"] < ms + 1]
            bulk = [r["fct_us"] for r in rpcs if r["tag"] == "bulk" and ms <= r["start_ms"] < ms + 1]
            timeline.append({"run": run, "ms": ms, "server_gbps": f"{gbps.get(ms, 0.0):.2f}",
                             "small_mean_us": f"{statistics.mean(small):.1f}" if small else "",
                             "bulk_mean_us": f"{statistics.mean(bulk):.1f}" if bulk else ""})
    for name, table in (("results.csv", rows), ("timeline.csv", timeline)):
        with open(os.path.join(out, name), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(table[0]))
            w.writeheader()
            w.writerows(table)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
