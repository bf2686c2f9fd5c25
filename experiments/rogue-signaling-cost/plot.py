"""Figs. 2, 3, 6 as ours: (left) signals per GB against the verb size, RoCE and RoGUE, the
application signalling every verb or once per MiB, from the simulator's counters (the real
runtime's as squares); (right) CPU: signalling priced at RoGUE's model (5 us a signal, 1 us a
clock read) as a share of one core at the rate reached, beside the paper's Fig. 2 and Fig. 3
points at 10 Gb/s (crosses), and the real runtime's client CPU per GB above plain RC's."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = list(csv.DictReader(open(sys.argv[1])))
fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
for source, marker in (("sim", "o"), ("real", "s")):
    for pattern in ("every_verb", "per_mib"):
        for scheme in ("roce", "rogue", "rc", "rogue-rc"):
            pts = sorted((int(r["bytes"]), r) for r in rows
                         if r["source"].startswith(source) and r["pattern"] == pattern
                         and r["scheme"] == scheme and r["op"] == "read")
            if not pts:
                continue
            name = f"{source} {scheme}, {pattern}"
            left.plot([b for b, _ in pts], [float(r["signals_per_gb"]) for _, r in pts],
                      marker=marker, label=name)
            if source == "sim":
                right.plot([b for b, _ in pts], [float(r["signal_cpu_pct"]) for _, r in pts],
                           marker=marker, label=name)
# The paper at 10 Gb/s (ConnectX-3 Pro): Fig. 2, one signal per verb: 16 KB 30%, 64 KB < 10%;
# Fig. 3, 16 KB verbs with one signal per 64 KB: 8%.
right.scatter([16384, 65536], [30, 10], marker="x", color="black", zorder=5,
              label="paper Fig. 2 (10G, signal every verb)")
right.scatter([16384], [8], marker="+", s=80, color="black", zorder=5,
              label="paper Fig. 3 (10G, 16 KB verbs, signal per 64 KB)")
for ax in (left, right):
    ax.set_xscale("log", base=2)
    ax.set_xlabel("verb size (bytes)")
    ax.legend(fontsize=5)
left.set_yscale("log")
left.set_ylabel("signals per GB (READ)")
right.set_ylabel("signalling CPU, % of a core (model's prices)")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
print(f"wrote {sys.argv[2]}")
