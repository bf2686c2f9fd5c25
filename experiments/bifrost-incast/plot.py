#!/usr/bin/env python3
"""Fig. 9: server goodput and the server NIC's out-of-sequence packets (OOS) against the number
of incast clients, minimum chunk 4 KiB vs 1 KiB (results.csv of run.sh)."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = list(csv.DictReader(open(sys.argv[1])))
series = [("unit4k", "min chunk 4 KiB", "o-"), ("unit1k", "min chunk 1 KiB", "s-")]
fig, (ax_tp, ax_oos) = plt.subplots(1, 2, figsize=(10, 3.6))
for key, label, style in series:
    pts = sorted((int(r["clients"]), float(r["goodput_gbps"]), float(r["link_gbps"]),
                  int(r["window_oos"])) for r in rows if r["series"] == key)
    if not pts:
        continue
    clients = [p[0] for p in pts]
    line, = ax_tp.plot(clients, [p[1] for p in pts], style, label=f"{label}: goodput")
    ax_tp.plot(clients, [p[2] for p in pts], style.replace("-", ":"), color=line.get_color(),
               label=f"{label}: server link")
    ax_oos.plot(clients, [p[3] for p in pts], style, label=label)
ax_tp.axhline(50, color="grey", lw=0.8, ls="--")
ax_tp.set_xlabel("incast clients (x 64 QPs)")
ax_tp.set_ylabel("Gb/s at the server (2 x 25 Gb/s)")
ax_tp.set_ylim(0, 60)
ax_tp.grid(alpha=0.3)
ax_tp.legend(fontsize=7)
ax_oos.set_xlabel("incast clients (x 64 QPs)")
ax_oos.set_ylabel("server NIC OOS packets, 160 ms window")
ax_oos.grid(alpha=0.3)
ax_oos.legend(fontsize=8)
fig.suptitle("32 KiB RPCs over Bifröst UC (profile paper), no PFC, default 12 MB switch buffer",
             fontsize=10)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
print(f"wrote {sys.argv[2]}")
