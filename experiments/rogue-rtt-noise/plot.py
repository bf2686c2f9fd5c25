"""Fig. 8 as the paper draws it: aggregate throughput of the incast against the noise bound x."""
import csv
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from rogue_common import line_plot  # noqa: E402

lines = defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    lines[f"{r['series']} seed {r['seed']}"].append((float(r["noise_us"]), float(r["aggregate_gbps"])))
line_plot(lines, "noise bound x (us): samples + uniform [0, x]", "aggregate throughput (Gb/s)",
          (100, "paper: visible drop at mean 50 us (x = 100)"), sys.argv[2])
