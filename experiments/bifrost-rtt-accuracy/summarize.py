#!/usr/bin/env python3
"""Collects run.sh's runs into results.csv: per seed and ACK path, the RTT samples host 0's
sender took towards host 1 (transport_rtt.csv), their excess over the reference run of the
same seed (no reverse traffic), and the measured stream's mean FCT and goodput (flows.csv).

With --paper-setup, OUT_DIR holds the paper-setup runs (seed*/<ack path>/): per run, the RTT
samples of all 64 connections of host 0 together (transport_rtt.csv's h0 -> h1 rows), the
requests done, their goodput (closed_loop.csv) and mean FCT (flows.csv), and the transport's
timeouts and resends (run.log).

Usage: summarize.py [--paper-setup] OUT_DIR RESULTS_CSV"""
import csv
import pathlib
import re
import sys

CONFIGS = ["reference", "ud_priority", "ud_same", "data_qp"]
# The paper setup also has these: the same ACK paths with a modelled host cost per completion.
HOST_CONFIGS = ["ud_priority_host", "data_qp_host"]
STATS = ["samples", "min_us", "mean_us", "p50_us", "p99_us", "p999_us", "max_us"]


def rtt_row(run):
    for row in csv.DictReader(open(run / "transport_rtt.csv")):
        if row["src"] == "h0" and row["dst"] == "h1":
            return {k: float(row[k]) for k in STATS}
    raise SystemExit(f"{run}: no h0 -> h1 row in transport_rtt.csv")


def measured_flows(run):
    fcts, done, total, bytes_done = [], 0, 0, 0
    for row in csv.DictReader(open(run / "flows.csv")):
        if not row["tag"].startswith("measured"):
            continue
        total += 1
        if row["fct_ps"]:
            done += 1
            fcts.append(int(row["fct_ps"]) / 1e6)
            bytes_done += int(row["size_bytes"])
    mean = sum(fcts) / len(fcts) if fcts else float("nan")
    return {"measured_flows": total, "measured_done": done, "measured_mean_fct_us": mean}


def paper_setup_row(run):
    lanes = [r for r in csv.DictReader(open(run / "transport_rtt.csv")) if r["src"] == "h0"]
    samples = sum(int(float(r["samples"])) for r in lanes)
    loop = next(csv.DictReader(open(run / "closed_loop.csv")))
    log = open(run / "run.log").read()
    counters = re.search(r"(\d+) WQEs retransmitted, .*?, (\d+) timeouts", log)
    fcts = [int(r["fct_ps"]) / 1e6 for r in csv.DictReader(open(run / "flows.csv")) if r["fct_ps"]]
    # With a host cost, how long receive completions (ACKs, grants) waited to be handled.
    wait = re.search(r"waited ([\d.]+) us on average, ([\d.]+) us at most", log)
    return {"connections": len(lanes), "samples": samples,
            "min_us": min(float(r["min_us"]) for r in lanes),
            "mean_us": sum(float(r["mean_us"]) * float(r["samples"]) for r in lanes) / samples,
            # the worst connection's percentiles (the connections' samples are not kept)
            "p99_us": max(float(r["p99_us"]) for r in lanes),
            "p999_us": max(float(r["p999_us"]) for r in lanes),
            "max_us": max(float(r["max_us"]) for r in lanes),
            "requests_done": int(loop["completed"]), "goodput_gbps": float(loop["goodput_gbps"]),
            # the 64 requests of a round start together: its FCT is the round's length
            "mean_fct_us": sum(fcts) / len(fcts) if fcts else float("nan"),
            "wqes_retransmitted": int(counters.group(1)), "timeouts": int(counters.group(2)),
            "receive_wait_mean_us": float(wait.group(1)) if wait else 0.0,
            "receive_wait_max_us": float(wait.group(2)) if wait else 0.0}


def write(rows, results):
    with open(results, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for row in rows:
            w.writerow({k: (f"{v:.3f}" if isinstance(v, float) else v) for k, v in row.items()})


def paper_setup(out, results):
    rows = []
    for seed_dir in sorted(out.glob("seed*")):
        for config in CONFIGS[1:] + HOST_CONFIGS:
            run = seed_dir / config
            if (run / "transport_rtt.csv").exists():
                rows.append({"seed": seed_dir.name[4:], "config": config, **paper_setup_row(run)})
    if not rows:
        raise SystemExit(f"no runs under {out}")
    write(rows, results)


def main():
    if sys.argv[1] == "--paper-setup":
        paper_setup(pathlib.Path(sys.argv[2]), sys.argv[3])
        return
    out, results = pathlib.Path(sys.argv[1]), sys.argv[2]
    rows = []
    for seed_dir in sorted(out.glob("seed*")):
        runs = {c: seed_dir / c for c in CONFIGS if (seed_dir / c / "transport_rtt.csv").exists()}
        if "reference" not in runs:
            continue
        ref = rtt_row(runs["reference"])
        for config, run in runs.items():
            r = rtt_row(run)
            row = {"seed": seed_dir.name[4:], "config": config, **r}
            for p in ("p50_us", "p99_us", "p999_us"):
                row[p.replace("_us", "_excess_us")] = r[p] - ref[p]
            row.update(measured_flows(run))
            rows.append(row)
    if not rows:
        raise SystemExit(f"no runs under {out}")
    write(rows, results)


if __name__ == "__main__":
    main()
