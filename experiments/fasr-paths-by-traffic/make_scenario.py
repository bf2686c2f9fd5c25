#!/usr/bin/env python3
"""Writes one scenario for experiments/fasr-paths-by-traffic (see README.md).

    make_scenario.py OUT_DIR incast N --cc none|dcqcn --duration-us 2000 [--pool default|large]
    make_scenario.py OUT_DIR websearch LOAD --duration-us 3000 [--pool default|large]
    make_scenario.py OUT_DIR paper-random Q --duration-us 10000
    make_scenario.py OUT_DIR paper-incast Q --duration-us 10000
    make_scenario.py OUT_DIR paper-websearch LOAD --duration-us 30000

incast: a star of N + 1 hosts (100 Gb/s, 1.5 us per link: base RTT 6 us, as the random-loss
series), hosts 1..N each send one 1 GB RDMA WRITE to host 0, started within the first
microsecond; the switch has a 400 KB shared buffer (one congested queue may hold up to about
half of it, alpha = 1), no PFC. `--cc dcqcn` adds ECN marking and DCQCN at the NICs.
websearch: a leaf-spine of 4 leaves x 8 hosts and 2 spines (100 Gb/s to hosts, 400 Gb/s
between switches, 0.75 us per link: base RTT 6 us across the spines, 3 us under one leaf),
1 MB buffer per switch, no PFC, no CC (or `--cc dcqcn`: ECN as for incast, 400 KB buffer); poisson arrivals with the websearch CDF at LOAD of the
host links, from every host to uniform other hosts, for the whole run.
Both: soft RNICs with FaSR (128 packets in flight per QP, an ACK per packet: the FaSR paper's
stack returns an ACK for every new packet, section IV), stop at the duration. `--pool large` gives every NIC 4,096 units and 2^20 blocks, so no episode falls
back to go-back-N for want of pool space; `default` is the 1,565 B pool (20 units, 256 16-bit blocks).

paper-*: the FaSR paper's own NS3 setting for Fig. 3 (section III-B: "all bandwidth of 200Gbps,
MTU 1024B, BDP size of 500, and the sender load set to 90% bandwidth"): every link 200 Gb/s,
500 packets in flight per QP, a base RTT of about 20.5 us (500 x 1,024 B at 200 Gb/s; 5 us per
link on the star, 2.5 us per link across the leaf-spine), 1 MB of switch buffer (ours: the paper
gives none), no CC (none named for NS3; the testbed turned DCQCN off, section V), the large pool. paper-random: host 1 sends to host 0
over Q QPs, each paced to 90% x 200 / Q Gb/s, with 1% random loss end to end (0.5013% on each of
the two host links, both directions, ACKs too). paper-incast: hosts 1..3 each send to host 0 over
Q QPs paced the same way (3V1: 540 Gb/s offered into 200 Gb/s). paper-websearch: a leaf-spine of
4 leaves x 4 hosts and 4 spines, all 200 Gb/s, websearch at LOAD of the host links.
"""
import argparse
import os

LARGE_POOL = "fasr_units = 4096\nfasr_blocks = 1048576\n"
PAPER_RATE_GBPS = 200
PAPER_SENDER_LOAD = 0.9
# 1 - (1 - p)^2 = 1%: the loss of one host link when a packet crosses two.
PAPER_HOST_LOSS = 0.005013


def incast_workloads(senders, qps_per_sender):
    """One incast workload per QP a sender keeps: each gives every sender one more flow (QP)."""
    out = []
    for q in range(qps_per_sender):
        # The name seeds the workload's jitter stream: a lone workload keeps the folder's first
        # name, so the 100 Gb/s series draw what they always drew.
        name = "incast" if qps_per_sender == 1 else f"incast{q}"
        out.append(f"""[[workload]]
kind = "incast"
name = "{name}"
receiver = 0
senders = "{senders}"
size = "1GB"
jitter = "1us"
""")
    return "\n".join(out)


def websearch_workload(load):
    return f"""[[workload]]
kind = "poisson"
name = "websearch"
cdf = "websearch"
load = {float(load)}
reference = "host"
"""


def ours(a):
    """The 100 Gb/s series of this folder: returns topology, buffer, nic extra, workloads, ..."""
    ecn = ""
    cc = ""
    if a.cc == "dcqcn":
        # The DCQCN paper's Kmin 5 KB and Pmax 1%; Kmax 100 KB (the paper: 200 KB), below the
        # ~200 KB that one queue of a 400 KB buffer can reach, so that marking saturates.
        ecn = '\n[switch.ecn]\nkmin = "5KB"\nkmax = "100KB"\npmax = 0.01\n'
        cc = "dcqcn = true\n"
    if a.kind == "incast":
        n = int(a.x)
        topo = f"""kind = "star"
hosts = {n + 1}
host_rate = "100Gbps"
host_delay = "1.5us"
"""
        return topo, a.buffer or "400KB", ecn, cc, incast_workloads("all", 1), "false", 128
    # No CC: 1 MB per switch already drops a lot. DCQCN keeps queues short, so it gets a
    # 400 KB buffer (as the incast) for losses to happen at all.
    buffer = a.buffer or ("400KB" if a.cc == "dcqcn" else "1MB")
    topo = """kind = "leaf_spine"
leaves = 4
spines = 2
hosts_per_leaf = 8
host_rate = "100Gbps"
host_delay = "0.75us"
fabric_rate = "400Gbps"
fabric_delay = "0.75us"
"""
    return topo, buffer, ecn, cc, websearch_workload(a.x), "true", 128


def paper(a):
    """The FaSR paper's Fig. 3 setting (module docstring)."""
    if a.cc != "none":
        raise SystemExit("make_scenario.py: the paper-* kinds run without CC (the paper names none)")
    buffer = a.buffer or "1MB"
    if a.kind == "paper-websearch":
        topo = f"""kind = "leaf_spine"
leaves = 4
spines = 4
hosts_per_leaf = 4
host_rate = "{PAPER_RATE_GBPS}Gbps"
host_delay = "2.5us"
fabric_rate = "{PAPER_RATE_GBPS}Gbps"
fabric_delay = "2.5us"
"""
        return topo, buffer, "", "", websearch_workload(a.x), "true", 500
    q = int(a.x)
    loss = f"host_loss = {PAPER_HOST_LOSS}\n" if a.kind == "paper-random" else ""
    topo = f"""kind = "star"
hosts = 4
host_rate = "{PAPER_RATE_GBPS}Gbps"
host_delay = "5us"
{loss}"""
    qp_rate_mbps = int(PAPER_RATE_GBPS * 1000 * PAPER_SENDER_LOAD / q)
    pace = f'qp_rate = "{qp_rate_mbps}Mbps"\n'
    senders = "1..1" if a.kind == "paper-random" else "1..3"
    return topo, buffer, "", pace, incast_workloads(senders, q), "false", 500


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("kind", choices=["incast", "websearch", "paper-random", "paper-incast",
                                     "paper-websearch"])
    ap.add_argument("x", help="incast: senders N; paper-random/-incast: QPs per sender; "
                              "websearch: load")
    ap.add_argument("--cc", choices=["none", "dcqcn"], default="none")
    ap.add_argument("--duration-us", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pool", choices=["default", "large"], default="large")
    ap.add_argument("--buffer", default=None)
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    pool = LARGE_POOL if a.pool == "large" else ""
    topo, buffer, ecn, nic_extra, work, flow_records, bdp = (
        paper(a) if a.kind.startswith("paper-") else ours(a))
    with open(os.path.join(a.out_dir, "scenario.toml"), "w") as f:
        f.write(f"""# Generated by experiments/fasr-paths-by-traffic/make_scenario.py: {a.kind} {a.x}, cc {a.cc}, pool {a.pool}.
[simulation]
seed = {a.seed}
mtu = 1024
duration = "{a.duration_us}us"
stop = "duration"

[topology]
{topo}
[switch]
buffer = "{buffer}"
alpha = 1
{ecn}
[nic]
model = "rnic"
recovery = "fasr"
bdp_packets = {bdp}
ack_every_packets = 1
{nic_extra}{pool}
{work}
[metrics]
flow_records = {flow_records}
throughput_interval = "{a.duration_us}us"
""")


if __name__ == "__main__":
    main()
