"""The DCQCN collapse of the synchronised start, per 1 ms bin of each DCQCN run: the DCI link's
throughput, the sixteen long flows' sender QPs (DCQCN's rate from flow_throughput.csv; a QP no
CNP has cut runs at line rate, 100 Gb/s), how many sit below 1 Gb/s, their mean alpha, and the
deepest egress queue of DC 1's border switch (where Bifrost's L stands) and of DC 0's, against
ECN's kmax. Also the run's CNP total (summary.json nic.cnps_sent).

usage: dcqcn_qps.py OUT_SET_DIR CSV     (OUT_SET_DIR: out/dci-throughput-stability/dcqcn_<len>)
"""
import collections
import csv
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from dci_common import write_csv  # noqa: E402

LINE_GBPS = 100.0
KMAX = 1_600_000  # dci-workload-fct's ECN kmax (scenario.py, ECN)
BIN_PS = 10**9    # 1 ms
DCI = "dc0.border->dc1.border"


def run_rows(run_dir):
    long_ids = set()
    with open(run_dir / "flows.csv") as f:
        for r in csv.DictReader(f):
            if r["tag"] == "long_haul":
                long_ids.add(r["id"])
    rates = collections.defaultdict(lambda: collections.defaultdict(list))  # bin -> flow -> rates
    alphas = collections.defaultdict(list)
    with open(run_dir / "flow_throughput.csv") as f:
        for r in csv.DictReader(f):
            if r["flow"] not in long_ids:
                continue
            b = int(r["end_ps"]) // BIN_PS
            if int(r["end_ps"]) % BIN_PS == 0:
                b -= 1  # a sample ending on the edge belongs to the bin before it
            rate = float(r["dcqcn_gbps"]) if r["dcqcn_gbps"] else LINE_GBPS
            rates[b][r["flow"]].append(rate)
            alphas[b].append(float(r["dcqcn_alpha"]) if r["dcqcn_alpha"] else 0.0)
    queues = collections.defaultdict(lambda: collections.defaultdict(int))
    above = collections.defaultdict(lambda: collections.defaultdict(int))
    with open(run_dir / "queues.csv") as f:
        for r in csv.DictReader(f):
            sw = r["queue"].split(":")[0]
            if sw not in ("dc0.border", "dc1.border"):
                continue
            b = int(r["time_ps"]) // BIN_PS
            n = int(r["bytes"])
            queues[b][sw] = max(queues[b][sw], n)
            above[b][sw] += n > KMAX
    gbps = collections.defaultdict(list)
    with open(run_dir / "throughput.csv") as f:
        for r in csv.DictReader(f):
            if r["link"] == DCI:
                gbps[int(r["start_ps"]) // BIN_PS].append(float(r["gbps"]))
    cnps = json.loads((run_dir / "summary.json").read_text()).get("nic", {}).get("cnps_sent", "")
    rows = []
    for b in sorted(rates):
        per_flow = [sum(v) / len(v) for v in rates[b].values()]
        lowest = [min(v) for v in rates[b].values()]
        rows.append({
            "bin_ms": b,
            "dci_gbps": round(sum(gbps[b]) / len(gbps[b]), 1) if gbps[b] else "",
            "long_qps": len(per_flow),
            "mean_dcqcn_gbps": round(sum(per_flow) / len(per_flow), 3),
            "qps_below_1gbps": sum(x < 1.0 for x in lowest),
            "lowest_dcqcn_gbps": round(min(lowest), 4),
            "mean_alpha": round(sum(alphas[b]) / len(alphas[b]), 3),
            "dc1_border_max_queue_mb": round(queues[b]["dc1.border"] / 1e6, 2),
            "dc1_border_samples_above_kmax": above[b]["dc1.border"],
            "dc0_border_max_queue_mb": round(queues[b]["dc0.border"] / 1e6, 2),
            "dc0_border_samples_above_kmax": above[b]["dc0.border"],
            "run_cnps": cnps,
        })
    return rows


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    out_set, csv_path = pathlib.Path(sys.argv[1]), sys.argv[2]
    rows = []
    for run_dir in sorted(p for p in out_set.iterdir() if (p / "flow_throughput.csv").exists()):
        scheme, bg = run_dir.name.split("_bg")
        for r in run_rows(run_dir):
            rows.append({"scheme": scheme, "bg_load": bg, **r})
    write_csv(csv_path, rows)
    for r in rows:
        if r["bin_ms"] in (0, 1, 2, 5, 10, 15, 19):
            print(r["scheme"], r["bg_load"], r["bin_ms"], r["dci_gbps"], r["mean_dcqcn_gbps"],
                  r["qps_below_1gbps"], r["mean_alpha"], r["dc1_border_max_queue_mb"],
                  r["dc0_border_max_queue_mb"], r["run_cnps"])


if __name__ == "__main__":
    main()
