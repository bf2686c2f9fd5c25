"""FCT(K) / FCT(1) against K for each size and mode, beside the ideal 1 / K (Figs. 5, 6)."""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = list(csv.DictReader(open(sys.argv[1])))
series = defaultdict(list)
for r in rows:
    series[(r["mode"], r["size"])].append((int(r["paths"]), float(r["ratio"]), float(r["fct_s"])))

fig, (ax_ratio, ax_fct) = plt.subplots(1, 2, figsize=(10, 4))
ks = sorted({int(r["paths"]) for r in rows})
ax_ratio.plot(ks, [1 / k for k in ks], "k--", label="1/K (ideal)")
for (mode, size), points in sorted(series.items()):
    points.sort()
    style = "-o" if mode == "pfc" else ":s"
    ax_ratio.plot([p[0] for p in points], [p[1] for p in points], style, label=f"{size} ({mode})")
    ax_fct.plot([p[0] for p in points], [p[2] for p in points], style, label=f"{size} ({mode})")
ax_ratio.set_xlabel("paths K")
ax_ratio.set_ylabel("FCT(K) / FCT(1)")
ax_ratio.set_title("Virtuoso: path utilisation (Fig. 5)")
ax_ratio.legend(fontsize=8)
ax_fct.set_xlabel("paths K")
ax_fct.set_ylabel("FCT (s)")
ax_fct.set_yscale("log")
ax_fct.set_title("FCT by flow size (Fig. 6)")
ax_fct.legend(fontsize=8)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
