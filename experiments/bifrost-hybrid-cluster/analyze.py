#!/usr/bin/python3
"""experiments/bifrost-hybrid-cluster: builds each run's scenario (`scenario`) and reduces the
runs' closed_loop.csv files to results.csv (`results`).

A run is (system, point, seed). The systems:
  plain_rc        hardware reliability + hardware CC: the NIC's go-back-N and DCQCN carry the
                  data (Bifröst RC mode, no software CC, no chunking: one WRITE per RPC)
  bifrost_rc      the NIC's go-back-N, Swift in software, NIC DCQCN off
  bifrost_uc      software reliability over UC, Swift, NIC DCQCN off
  bifrost_rc_dcqcn  Bifröst RC with Swift while the NICs' DCQCN is still on (the middle step of
                  a non-stop upgrade)
A point is the CX-5 profile's DCQCN rate-increase timer T and byte counter B (the CX-4 profile
keeps the mlx5 defaults, 300 us and 32,767 B). With NIC DCQCN off the point cannot matter: those
systems run once per seed and stand for every point."""
import csv
import json
import os
import sys

SYSTEMS = {
    # name: (transport, cc, chunking, NIC DCQCN)
    "plain_rc": ("bifrost-rc", "none", "false", True),
    "bifrost_rc": ("bifrost-rc", "swift", "true", False),
    "bifrost_uc": ("bifrost-uc", "swift", "true", False),
    "bifrost_rc_dcqcn": ("bifrost-rc", "swift", "true", True),
}
# CX-5's (T, B): "same" is no difference at all (the noise floor), "profiles" the profiles as
# shipped (rnic/nic_profile.h).
POINTS = {
    "same": ("300us", 32767),
    "T150us": ("150us", 32767),
    "T55us": ("55us", 32767),
    "T20us": ("20us", 32767),
    "B256KB": ("55us", 262144),
    "B1MB": ("55us", 1048576),
    "profiles": ("55us", 10000000),
}
# The DCQCN paper's notification point: at most one CNP per QP per 50 us. With mlx5's 4 us and
# its 4 us decrease period, a 16:1 incast halves every rate ~10 times before the queue drains
# and go-back-N's timeouts follow (measured: no flow finished in 20 ms).
DCQCN = 'dcqcn = true\ndcqcn_cnp_interval = "50us"\n'


def profiles(point, dcqcn):
    # The cx4 profile as shipped (its calibrated shared DCQCN reaction points, as in the full
    # mesh); CX4_REACTION_GROUPS overrides it (0: one reaction point per QP, the model before).
    groups = os.environ.get("CX4_REACTION_GROUPS", "")
    text = '\n[nic.profile.cx4]\nhosts = "1..8"\n'
    if groups:
        text += f"dcqcn_reaction_groups = {groups}\n"
    text += '\n[nic.profile.cx5]\nhosts = "9..16"\n'
    if dcqcn:
        period, counter = POINTS[point]
        text += f'dcqcn_increase_period = "{period}"\ndcqcn_increase_bytes = {counter}\n'
    return text


def scenario(template, system, point, seed):
    transport, cc, chunking, dcqcn = SYSTEMS[system]
    text = open(template).read()
    for key, value in (("@SEED@", seed), ("@TRANSPORT@", transport), ("@CC@", cc),
                       ("@CHUNKING@", chunking), ("@DCQCN@", DCQCN if dcqcn else ""),
                       ("@PROFILES@", profiles(point, dcqcn))):
        text = text.replace(key, str(value))
    sys.stdout.write(text)


def gap(a, b):
    return abs(a - b) / ((a + b) / 2) if a + b > 0 else 0.0


def results(runs, out):
    rows = []
    for name in sorted(os.listdir(runs)):
        system, point, seed = name.split(":")
        with open(os.path.join(runs, name, "closed_loop.csv")) as f:
            loops = {r["workload"]: r for r in csv.DictReader(f)}
        with open(os.path.join(runs, name, "summary.json")) as f:
            nic = json.load(f).get("nic", {})
        cx4 = float(loops["cx4"]["goodput_gbps"])
        cx5 = float(loops["cx5"]["goodput_gbps"])
        rows.append({"system": system, "cx5_point": point, "seed": seed,
                     "cx5_increase_period": POINTS[point][0] if SYSTEMS[system][3] else "n/a",
                     "cx5_increase_bytes": POINTS[point][1] if SYSTEMS[system][3] else "n/a",
                     "cx4_gbps": f"{cx4:.2f}", "cx5_gbps": f"{cx5:.2f}",
                     "total_gbps": f"{cx4 + cx5:.2f}", "gap_pct": f"{100 * gap(cx4, cx5):.1f}",
                     # The NICs' recovery counters over the whole run (summary.json "nic").
                     **{f"nic_{k}": nic.get(k, "") for k in ("retransmitted", "timeouts",
                                                            "naks_sent", "delayed_acks",
                                                            "cnps_sent")}})
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    if sys.argv[1] == "scenario":
        scenario(*sys.argv[2:6])
    elif sys.argv[1] == "results":
        results(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: analyze.py scenario TEMPLATE SYSTEM POINT SEED | results RUNS OUT.csv")
