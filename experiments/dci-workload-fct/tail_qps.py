"""Why the p99 FCT with DCQCN is ~20 ms at 8 km: for each run with flow_throughput.csv
(FLOW_SAMPLES set in run.sh), the flows at or above the p99 FCT against the other flows of the
same size range, by their sender QP's DCQCN rate (README, "DCQCN's tail"): the lowest rate
seen, the time spent below 1 Gb/s, and the run's CNPs (summary.json nic.cnps_sent); also the
p99.5 and the number of flows over 5 ms (the tail's size, dci-distance README).

usage: tail_qps.py RUN_DIR...          (prints one CSV row per run to stdout)
"""
import csv
import json
import math
import pathlib
import statistics
import sys

LINE_GBPS = 100.0


def analyse(run_dir):
    fct, size = {}, {}
    with open(run_dir / "flows.csv") as f:
        for r in csv.DictReader(f):
            if r["fct_ps"]:
                fct[r["id"]] = int(r["fct_ps"]) / 1e9  # ms
                size[r["id"]] = int(r["size_bytes"])
    ranked = sorted(fct.values())
    p99 = ranked[max(1, math.ceil(0.99 * len(ranked))) - 1]
    tail = {i for i, t in fct.items() if t >= p99}
    smallest_tail = min(size[i] for i in tail)
    peers = {i for i in fct if i not in tail and size[i] >= smallest_tail}
    lowest, slow_ms = {}, {}
    with open(run_dir / "flow_throughput.csv") as f:
        for r in csv.DictReader(f):
            i = r["flow"]
            if i not in tail and i not in peers:
                continue
            rate = float(r["dcqcn_gbps"]) if r["dcqcn_gbps"] else LINE_GBPS
            lowest[i] = min(lowest.get(i, LINE_GBPS), rate)
            if rate < 1.0:
                slow_ms[i] = slow_ms.get(i, 0) + (int(r["end_ps"]) - int(r["start_ps"])) / 1e9

    def describe(ids):
        ids = sorted(ids)
        return {
            "flows": len(ids),
            "median_mb": round(statistics.median(size[i] for i in ids) / 1e6, 2),
            "median_fct_ms": round(statistics.median(fct[i] for i in ids), 2),
            "share_below_10mbps": round(sum(lowest.get(i, LINE_GBPS) < 0.01 for i in ids)
                                        / len(ids), 2),
            "median_ms_below_1gbps": round(statistics.median(slow_ms.get(i, 0) for i in ids), 2),
        }

    summary = json.loads((run_dir / "summary.json").read_text())
    # How many flows the DCQCN tail holds: the p99 lands in it only while it is over 1 % of them.
    p995 = ranked[max(1, math.ceil(0.995 * len(ranked))) - 1]
    row = {"run": run_dir.parent.name + "/" + run_dir.name, "p99_ms": round(p99, 2),
           "p99_5_ms": round(p995, 2), "flows_over_5ms": sum(t > 5 for t in ranked),
           "cnps": summary.get("nic", {}).get("cnps_sent", "")}
    row.update({f"tail_{k}": v for k, v in describe(tail).items()})
    row.update({f"peers_{k}": v for k, v in describe(peers).items()})
    return row


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    rows = [analyse(pathlib.Path(d)) for d in sys.argv[1:]]
    w = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)


if __name__ == "__main__":
    main()
