"""Table 1 as bars: p50 of each row with its p10-p90 range, ours per simulated configuration
beside the paper's (2/2/2, 4/4/6, 8/8/8 us). The real runtime's rows (config real_*) are left out:
their p90s are milliseconds (README, "Real runtime")."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

PAPER = {"rc_write0_oracle": (2, 2, 2), "rc_read": (4, 4, 6), "uc_write": (8, 8, 8)}
LABELS = {"rc_write0_oracle": "RC WRITE(0)", "rc_read": "RC READ(64KB)",
          "uc_write": "UC WRITE(64KB)"}
rows = list(csv.DictReader(open(sys.argv[1])))
configs = [c for c in dict.fromkeys(r["config"] for r in rows) if not c.startswith("real")]
series = [("paper (testbed)", {k: v for k, v in PAPER.items()})]
for c in configs:
    series.append((f"ours: {c}", {r["row"]: (float(r["p10_us"]), float(r["p50_us"]),
                                              float(r["p90_us"]))
                                   for r in rows if r["config"] == c}))
fig, ax = plt.subplots(figsize=(7, 3.6))
width = 0.8 / len(series)
for i, (name, values) in enumerate(series):
    xs, mid, lo, hi = [], [], [], []
    for j, row in enumerate(PAPER):
        if row not in values:
            continue
        p10, p50, p90 = values[row]
        xs.append(j + (i - (len(series) - 1) / 2) * width)
        mid.append(p50)
        lo.append(p50 - p10)
        hi.append(p90 - p50)
    ax.bar(xs, mid, width, yerr=[lo, hi], capsize=2, label=name,
           hatch="//" if i == 0 else None)
ax.set_xticks(range(len(PAPER)))
ax.set_xticklabels([LABELS[r] for r in PAPER])
ax.set_ylabel("RTT (us): p50, bars p10-p90")
ax.legend(fontsize=7)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
print(f"wrote {sys.argv[2]}")
