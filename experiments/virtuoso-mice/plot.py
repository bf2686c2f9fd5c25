"""Mouse FCT over time and its CDF, per case: alone, beside a one-path elephant, beside the
elephant split over K paths (Fig. 7)."""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = list(csv.DictReader(open(sys.argv[1])))
cases = defaultdict(list)
for r in rows:
    cases[(r["case"], r["elephant_paths"])].append((float(r["start_ms"]), float(r["fct_us"])))
names = {"alone": "no elephant", "one_path": "elephant on 1 path", "split": "elephant split"}

fig, (ax_t, ax_cdf) = plt.subplots(1, 2, figsize=(10, 4))
for (case, k), points in cases.items():
    label = names.get(case, case) + (f" (K = {k})" if case == "split" else "")
    ax_t.plot([p[0] for p in points], [p[1] / 1e3 for p in points], "-o", ms=3, label=label)
    fct = sorted(p[1] / 1e3 for p in points)
    ax_cdf.step(fct, [(i + 1) / len(fct) for i in range(len(fct))], where="post", label=label)
ax_t.set_xlabel("mouse start (ms, simulated)")
ax_t.set_ylabel("256 KB mouse FCT (ms)")
ax_t.set_yscale("log")
ax_t.set_title("Virtuoso: mice beside an elephant (Fig. 7)")
ax_t.legend(fontsize=8)
ax_cdf.set_xlabel("mouse FCT (ms)")
ax_cdf.set_xscale("log")
ax_cdf.set_ylabel("CDF")
ax_cdf.legend(fontsize=8)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
