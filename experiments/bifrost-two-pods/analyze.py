#!/usr/bin/python3
"""experiments/bifrost-two-pods: builds each run's scenario (`scenario`) and reduces the runs'
outputs to results.csv (`results`). Pods hold 4 hosts each (k = 4), so pod = host // 4."""
import csv
import json
import os
import sys

HOSTS = list(range(8))      # pods 0 and 1
HOSTS_PER_POD = 4
SIZE, DEPTH, DURATION, WARMUP = "512KiB", 8, "10ms", "3ms"
WINDOW_PS = (3_000_000_000, 10_000_000_000)

NETWORKS = {
    # [switch.pfc] covers every link class without its own table.
    "pfc_everywhere": "[switch.pfc]\n",
    "pfc_below_core": "[switch.pfc]\n[switch.flow_control.core]\nkind = \"none\"\n",
    "lossy": "",
}


def mesh():
    out = []
    for server in HOSTS:
        clients = ", ".join(str(h) for h in HOSTS if h != server)
        out.append(f'\n[[workload]]\nkind = "closed_loop"\nname = "to{server}"\n'
                   f'clients = [{clients}]\nserver = {server}\nthreads = 1\ndepth = {DEPTH}\n'
                   f'size = "{SIZE}"\nduration = "{DURATION}"\nwarmup = "{WARMUP}"\n')
    return "".join(out)


def scenario(template, transport, cc, network):
    text = open(template).read()
    text = text.replace("@TRANSPORT@", transport).replace("@CC@", cc)
    text = text.replace("@FLOW_CONTROL@", NETWORKS[network])
    sys.stdout.write(text + mesh())


def nearest_rank(values, p):
    values = sorted(values)
    if not values:
        return None
    k = max(1, -(-len(values) * p // 100))
    return values[int(k) - 1]


def reduce_run(folder):
    start, end = WINDOW_PS
    seconds = (end - start) * 1e-12
    groups = {"intra": {"bytes": 0, "fct": []}, "inter": {"bytes": 0, "fct": []}}
    with open(os.path.join(folder, "flows.csv")) as f:
        for row in csv.DictReader(f):
            if not row["finish_ps"]:
                continue  # still outstanding when the run stopped
            finish = int(row["finish_ps"])
            if not start <= finish < end:
                continue
            same = int(row["src"]) // HOSTS_PER_POD == int(row["dst"]) // HOSTS_PER_POD
            g = groups["intra" if same else "inter"]
            g["bytes"] += int(row["size_bytes"])
            g["fct"].append(int(row["fct_ps"]) / 1e6)
    summary = json.load(open(os.path.join(folder, "summary.json")))
    out = {}
    for name, g in groups.items():
        # Per host: 3 intra-pod and 4 inter-pod peers send to each of the 8 servers.
        out[f"{name}_gbps_per_server"] = round(g["bytes"] * 8 / seconds / 1e9 / len(HOSTS), 2)
        out[f"{name}_fct_p50_us"] = round(nearest_rank(g["fct"], 50) or 0, 1)
        out[f"{name}_fct_p99_us"] = round(nearest_rank(g["fct"], 99) or 0, 1)
        out[f"{name}_rpcs"] = len(g["fct"])
    out["total_gbps_per_server"] = round(
        out["intra_gbps_per_server"] + out["inter_gbps_per_server"], 2)
    out["drops"] = summary["drops"]["total"]
    out["pauses"] = summary["pauses"]["count"]
    out["paused_us"] = round(summary["pauses"]["paused_ps"] / 1e6, 1)
    rtt = list(csv.DictReader(open(os.path.join(folder, "transport_rtt.csv"))))
    p99 = [float(r["p99_us"]) for r in rtt if r["p99_us"]]
    out["rtt_p99_us_worst_direction"] = round(max(p99), 1) if p99 else ""
    return out


def results(tmp, out_csv):
    rows = []
    for run in sorted(os.listdir(tmp)):
        folder = os.path.join(tmp, run)
        if not os.path.isdir(folder):
            continue
        transport, cc, network = run.split(":")
        row = {"transport": transport, "cc": cc, "network": network}
        row.update(reduce_run(folder))
        rows.append(row)
    with open(out_csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    if sys.argv[1] == "scenario":
        scenario(*sys.argv[2:6])
    else:
        results(sys.argv[2], sys.argv[3])
