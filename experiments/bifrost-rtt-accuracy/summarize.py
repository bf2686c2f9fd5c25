#!/usr/bin/env python3
"""Collects run.sh's runs into results.csv: per seed and ACK path, the RTT samples host 0's
sender took towards host 1 (transport_rtt.csv), their excess over the reference run of the
same seed (no reverse traffic), and the measured stream's mean FCT and goodput (flows.csv).

Usage: summarize.py OUT_DIR RESULTS_CSV"""
import csv
import pathlib
import sys

CONFIGS = ["reference", "ud_priority", "ud_same", "data_qp"]
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


def main():
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
    with open(results, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for row in rows:
            w.writerow({k: (f"{v:.3f}" if isinstance(v, float) else v) for k, v in row.items()})


if __name__ == "__main__":
    main()
