"""Fig. 9 as the paper draws it: median throughput against the loss rate, one line per verb
size (our flow sizes in the legend)."""
import csv
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from rogue_common import line_plot  # noqa: E402

lines = defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    if r["drop_every"] != "0":
        lines[r["series"]].append((float(r["loss_rate"]) * 100, float(r["median_goodput_gbps"])))
line_plot(lines, "packet loss (%), every N-th packet per NIC", "median throughput per flow (Gb/s)",
          (0.025, "paper: performs well up to 0.025%"), sys.argv[2], xscale="log")
