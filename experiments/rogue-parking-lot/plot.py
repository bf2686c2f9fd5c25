"""Fig. 11 (CDF of the WRITE(0) probe's RTT, per series, the paper's median and p90 marked) and
Fig. 13's run (per-flow goodput over time of the headline series).
Usage: plot.py SAMPLES_CSV PROBES_CSV OUT_PNG [HEADLINE_SERIES]"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

samples, probes, out = sys.argv[1:4]
headline = sys.argv[4] if len(sys.argv) > 4 else "paper"
rtts = defaultdict(list)
for r in csv.DictReader(open(probes)):
    rtts[r["series"]].append(float(r["rtt_us"]))
fig, (cdf, over) = plt.subplots(1, 2, figsize=(10, 3.6))
for name, xs in sorted(rtts.items()):
    if len(xs) < 100:  # a single probe is no distribution
        continue
    xs.sort()
    cdf.plot(xs, [(i + 1) / len(xs) for i in range(len(xs))], label=name)
for x, label in ((58, "paper p50 58 us"), (75, "paper p90 75 us")):
    cdf.axvline(x, color="grey", linestyle=":", label=label)
cdf.set_xscale("log")
cdf.set_xlabel("WRITE(0) RTT, us (log)")
cdf.set_ylabel("CDF")
cdf.set_title("Fig. 11: probe latency, host 1 -> 7")
cdf.legend(fontsize=7)
lines = defaultdict(list)
for r in csv.DictReader(open(samples)):
    if r["series"] == headline:
        lines[r["flow"]].append((float(r["end_s"]), float(r["gbps"])))
for host, pts in sorted(lines.items()):
    pts.sort()
    over.plot([p[0] for p in pts], [p[1] for p in pts], label=f"from h{host}")
over.axhline(2.27, color="grey", linestyle=":", label="paper mean 2.27 Gb/s")
over.set_xlabel("time, s")
over.set_ylabel("goodput, Gb/s")
over.set_ylim(bottom=0)
over.set_title(f"Fig. 13 parking lot, series {headline}")
over.legend(fontsize=7)
fig.tight_layout()
fig.savefig(out, dpi=120)
print(f"wrote {out}")
