#!/usr/bin/python3
"""experiments/bifrost-hybrid-cluster, the paper's full mesh (mesh.toml.in): builds each run's
scenario (`scenario`) and reduces the runs' flows.csv to results_mesh.csv (`results`): each
group's mean send throughput per host, from the RPCs that finished in the window.

Hosts 0-7 have the cx4 profile, 8-15 the cx5 profile. Each host serves one closed loop whose
clients are the 15 others, `depth` RPCs of 512 KiB outstanding per (client, server) pair (the
paper's RPC size for its full-mesh tests, §4.3). Systems and CX-5 points are analyze.py's; a
point may end in "@gN" to override the cx4 profile's DCQCN reaction groups (the calibration
sweep)."""
import csv
import os
import sys

from analyze import DCQCN, POINTS, SYSTEMS, gap

HOSTS = 16
CX4 = range(0, 8)
DEPTH = 1
SIZE = "512KiB"
WARMUP_MS = 10


def profiles(point, dcqcn):
    """A point is one of analyze.POINTS, optionally with "@gN": the cx4 profile's DCQCN reaction
    groups overridden to N (0: one per QP, the model before the calibration; the profile's own
    is 5)."""
    point, _, groups = point.partition("@g")
    text = '\n[nic.profile.cx4]\nhosts = "0..7"\n'
    if groups:
        text += f"dcqcn_reaction_groups = {int(groups)}\n"
    text += '\n[nic.profile.cx5]\nhosts = "8..15"\n'
    if dcqcn:
        period, counter = POINTS[point]
        text += f'dcqcn_increase_period = "{period}"\ndcqcn_increase_bytes = {counter}\n'
    return text


def workloads(duration):
    return "".join(
        f'\n[[workload]]\nkind = "closed_loop"\nname = "to{s}"\nclients = "all"\nserver = {s}\n'
        f'depth = {DEPTH}\nsize = "{SIZE}"\nduration = "{duration}"\nwarmup = "{WARMUP_MS}ms"\n'
        for s in range(HOSTS))


def scenario(template, system, point, seed, duration):
    transport, cc, chunking, dcqcn = SYSTEMS[system]
    text = open(template).read()
    for key, value in (("@SEED@", seed), ("@DURATION@", duration), ("@TRANSPORT@", transport),
                       ("@CC@", cc), ("@CHUNKING@", chunking),
                       ("@DCQCN@", DCQCN if dcqcn else ""),
                       ("@PROFILES@", profiles(point, dcqcn)), ("@WORKLOADS@", workloads(duration))):
        text = text.replace(key, str(value))
    sys.stdout.write(text)


def send_gbps(run, lo_ps, hi_ps):
    """Per host: bytes of the RPCs it sent that finished in [lo, hi), as Gb/s."""
    sent = [0] * HOSTS
    with open(os.path.join(run, "flows.csv")) as f:
        for r in csv.DictReader(f):
            if r["finish_ps"] and lo_ps <= int(r["finish_ps"]) < hi_ps:
                sent[int(r["src"])] += int(r["size_bytes"])
    return [8 * b / ((hi_ps - lo_ps) / 1e12) / 1e9 for b in sent]


def results(runs, duration_ms, out):
    rows = []
    for name in sorted(os.listdir(runs)):
        system, point, seed = name.split(":")
        gbps = send_gbps(os.path.join(runs, name), WARMUP_MS * 10**9, int(duration_ms) * 10**9)
        cx4 = sum(gbps[h] for h in CX4) / len(CX4)
        cx5 = sum(gbps[h] for h in range(HOSTS) if h not in CX4) / (HOSTS - len(CX4))
        rows.append({"system": system, "cx5_point": point, "seed": seed,
                     "cx4_gbps_per_host": f"{cx4:.2f}", "cx5_gbps_per_host": f"{cx5:.2f}",
                     "gap_pct": f"{100 * gap(cx4, cx5):.1f}",
                     "min_host_gbps": f"{min(gbps):.2f}", "max_host_gbps": f"{max(gbps):.2f}"})
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    if sys.argv[1] == "scenario":
        scenario(*sys.argv[2:7])
    elif sys.argv[1] == "results":
        results(*sys.argv[2:5])
    else:
        sys.exit("usage: mesh.py scenario TEMPLATE SYSTEM POINT SEED DURATION | "
                 "results RUNS DURATION_MS OUT.csv")
