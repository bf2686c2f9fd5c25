#!/usr/bin/python3
"""experiments/bifrost-two-pods, Fig. 8: builds each run's scenario (`scenario TEMPLATE TEST
SYSTEM`), reduces a run to per-pod sending throughput per interval (`series RUN_DIR TEST SYSTEM
OUT_CSV`, appends), plots (`plot CSV PNG`) and prints the README's table (`summary CSV`).

Tests: `intra` (Fig. 8(a): a full mesh inside pod 2, PFC and DCQCN everywhere, the lossless
queue) and `inter` (Fig. 8(b)(c): a full mesh over both pods, PFC at the ToR and aggregation
switches only). Systems: `ardma` (plain RC: the NIC's go-back-N and DCQCN, no software CC, no
chunking, always on the lossless queue), `bifrost-uc` / `bifrost-rc` (profile = "paper"; on
the lossless queue in `intra`, on a lossy one, no PFC and no DCQCN, in `inter`)."""
import csv
import os
import sys
from collections import defaultdict

# Pod 1 is small, pod 2 large, as the paper's clusters A (10 nodes) and B (90): 2 hosts of pod 0
# (one per ToR) and the 8 hosts of pod 1 of a k = 4 fat tree with 4 hosts per ToR.
POD1 = [0, 4]
POD2 = list(range(8, 16))
SIZE, THREADS, DEPTH = "512KiB", 4, 2
DURATION_MS, WARMUP_MS, BIN_MS = 30, 5, 1
FABRIC = os.environ.get("FABRIC", "50Gbps")  # ToR-aggregation and aggregation-core links

ECN = '[switch.ecn]\nkmin = "100KB"\nkmax = "400KB"\npmax = 0.2\n'
DCQCN = 'dcqcn = true\ndcqcn_cnp_interval = "50us"\n'
NETWORKS = {
    # Lossless queue: PFC on every link, ECN for DCQCN.
    "lossless": "[switch.pfc]\n" + ECN,
    # The clusters' RoCE configuration: PFC at the ToR and leaf (aggregation) switches, not at
    # the spine (core): neither end of an aggregation-core link pauses the other.
    "pfc_below_core": "[switch.pfc]\n[switch.flow_control.core]\nkind = \"none\"\n" + ECN,
    "lossy": "",
}


def hosts(test):
    return POD2 if test == "intra" else POD1 + POD2


def pod(host):
    return "pod1" if host in POD1 else "pod2"


def setup(test, system):
    """(network, nic lines, transport lines, upgrade lines) of one run."""
    if system == "ardma":
        # Every RPC on the plain-RC twin: [upgrade]'s switch to Bifröst never comes.
        network = "lossless" if test == "intra" else "pfc_below_core"
        return (network, DCQCN, 'kind = "bifrost-uc"\nprofile = "paper"\n',
                f'[upgrade]\nto_bifrost = "{10 * DURATION_MS}ms"\n')
    transport = f'kind = "{system}"\nprofile = "paper"\n'
    if test == "intra":  # Bifröst on the lossless queue: PFC and the NIC's DCQCN under it
        return ("lossless", DCQCN, transport, "")
    return ("lossy", "", transport, "")


def scenario(template, test, system):
    network, nic, transport, upgrade = setup(test, system)
    text = open(template).read()
    for key, value in (("@DURATION@", f"{DURATION_MS}ms"), ("@NETWORK@", NETWORKS[network]),
                       ("@NIC@", nic), ("@TRANSPORT@", transport), ("@UPGRADE@", upgrade),
                       ("@INTERVAL@", f"{BIN_MS}ms"), ("@FABRIC@", FABRIC)):
        text = text.replace(key, value)
    members = hosts(test)
    for server in members:
        clients = ", ".join(str(h) for h in members if h != server)
        text += (f'\n[[workload]]\nkind = "closed_loop"\nname = "to{server}"\n'
                 f'clients = [{clients}]\nserver = {server}\nthreads = {THREADS}\n'
                 f'depth = {DEPTH}\nsize = "{SIZE}"\nduration = "{DURATION_MS}ms"\n')
    sys.stdout.write(text)


def series(run, test, system, out_csv):
    """Per pod and BIN_MS interval, per host of the pod: what its hosts' NICs sent (the host
    links' bytes, retransmissions included: a NIC counter's sending throughput) and their
    goodput (the bytes of the RPCs they issued that completed in the interval)."""
    members = hosts(test)
    size = defaultdict(int)
    for h in members:
        size[pod(h)] += 1
    bin_ps = BIN_MS * 1_000_000_000
    link = defaultdict(int)
    for r in csv.DictReader(open(f"{run}/throughput.csv")):
        h = int(r["link"].split("->")[0][1:]) if r["link"].startswith("h") else None
        if h in members:
            link[(int(r["start_ps"]) // bin_ps, pod(h))] += int(r["bytes"])
    goodput = defaultdict(int)
    for r in csv.DictReader(open(f"{run}/flows.csv")):
        if r["finish_ps"]:
            goodput[(int(r["finish_ps"]) // bin_ps, pod(int(r["src"])))] += int(r["size_bytes"])
    with open(out_csv, "a", newline="") as f:
        w = csv.writer(f)
        for b in range(DURATION_MS // BIN_MS):
            for p in sorted(size):
                per_host = 8 / (BIN_MS * 1e-3) / 1e9 / size[p]
                w.writerow([test, system, p, size[p], b * BIN_MS,
                            round(link[(b, p)] * per_host, 2),
                            round(goodput[(b, p)] * per_host, 2)])


def plot(csv_path, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = list(csv.DictReader(open(csv_path)))
    panels = [("intra", None, "(a) intra-pod (pod 2), PFC + DCQCN"),
              ("inter", "ardma", "(b) inter-pod, ARDMA (PFC below the spine)"),
              ("inter", "bifrost", "(c) inter-pod, Bifröst (paper profile, lossy)")]
    fig, axes = plt.subplots(1, 3, figsize=(14, 3.8), sharey=True)
    for ax, (test, system, title) in zip(axes, panels):
        for key in sorted({(r["system"], r["pod"]) for r in rows if r["test"] == test}):
            if system and not key[0].startswith(system):
                continue
            pts = [(float(r["start_ms"]), float(r["goodput_gbps_per_host"]),
                    float(r["link_gbps_per_host"])) for r in rows
                   if r["test"] == test and (r["system"], r["pod"]) == key
                   and float(r["start_ms"]) >= WARMUP_MS]
            # Goodput counts whole 512 KiB RPCs as they complete: a 3 ms moving mean.
            smooth = [sum(q[1] for q in pts[max(0, i - 2):i + 1]) / len(pts[max(0, i - 2):i + 1])
                      for i in range(len(pts))]
            line, = ax.plot([p[0] for p in pts], smooth,
                            label=f"{key[0]}, {key[1]}: goodput (3 ms mean)")
            ax.plot([p[0] for p in pts], [p[2] for p in pts], ":", color=line.get_color(),
                    label=f"{key[0]}, {key[1]}: NIC sent")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("time (ms)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6)
    axes[0].set_ylabel("Gb/s per host (1 ms bins)")
    axes[0].set_ylim(0, 62)
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def summary(csv_path):
    """The README's table: per run and pod, after the warm-up, the mean NIC sending rate and
    goodput per host and the range of the goodput's 3 ms means (disjoint windows)."""
    rows = list(csv.DictReader(open(csv_path)))
    print("| test | system | pod (hosts) | NIC sent, Gb/s per host | goodput | goodput 3 ms min-max |")
    print("|---|---|---|---|---|---|")
    keys = []
    for r in rows:
        if (r["test"], r["system"], r["pod"]) not in keys:
            keys.append((r["test"], r["system"], r["pod"]))
    for key in keys:
        pts = [r for r in rows if (r["test"], r["system"], r["pod"]) == key
               and float(r["start_ms"]) >= WARMUP_MS]
        link = sum(float(r["link_gbps_per_host"]) for r in pts) / len(pts)
        good = [float(r["goodput_gbps_per_host"]) for r in pts]
        means = [sum(good[i:i + 3]) / 3 for i in range(0, len(good) - 2, 3)]
        print(f"| {key[0]} | {key[1]} | {key[2]} ({pts[0]['hosts']}) | {link:.1f} | "
              f"{sum(good) / len(good):.1f} | {min(means):.1f}-{max(means):.1f} |")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "scenario":
        scenario(*sys.argv[2:5])
    elif cmd == "series":
        series(*sys.argv[2:6])
    elif cmd == "summary":
        summary(sys.argv[2])
    else:
        plot(*sys.argv[2:4])
