#!/usr/bin/python3
"""rtt.png from results.csv: host 0's RTT samples (p50, p99, p99.9; mean over seeds) per ACK
path. Usage: plot.py RESULTS_CSV PNG"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

CONFIGS = ["reference", "ud_priority", "ud_same", "data_qp"]
LABELS = {"reference": "no reverse traffic", "ud_priority": "UD QP, ACK class (Bifröst)",
          "ud_same": "UD QP, data class", "data_qp": "data QP"}
PERCENTILES = [("p50_us", "p50"), ("p99_us", "p99"), ("p999_us", "p99.9")]

values = defaultdict(list)
for row in csv.DictReader(open(sys.argv[1])):
    for key, _ in PERCENTILES:
        values[(row["config"], key)].append(float(row[key]))
configs = [c for c in CONFIGS if values[(c, "p50_us")]]
fig, ax = plt.subplots(figsize=(7, 4))
width = 0.8 / len(PERCENTILES)
for i, (key, label) in enumerate(PERCENTILES):
    ys = [sum(values[(c, key)]) / len(values[(c, key)]) for c in configs]
    ax.bar([x + i * width for x in range(len(configs))], ys, width, label=label)
ax.set_xticks([x + width for x in range(len(configs))])
ax.set_xticklabels([LABELS[c] for c in configs], fontsize=8)
ax.set_ylabel("RTT measured by host 0 (us)")
ax.set_yscale("log")
ax.legend()
ax.set_title("RTT samples vs the software ACK's path (Bifröst Fig. 4(b), simulated)")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
