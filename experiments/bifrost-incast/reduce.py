#!/usr/bin/env python3
"""One Fig. 9 point from two runs of the same scenario: the whole run (OUT_RUN) and the same
run stopped at the end of the warm-up (OUT_WARMUP). Prints the CSV row after PREFIX: goodput
and server link (Gb/s) and switch drops in the window from the whole run; the window's OOS is the
difference of the two runs' NIC totals (uc_out_of_sequence), since the warm-ups of both are
the same simulation.

  reduce.py OUT_RUN OUT_WARMUP STDOUT_RUN PREFIX
"""
import csv
import json
import re
import sys

full, warm, stdout, prefix = sys.argv[1:]
loop = next(csv.DictReader(open(f"{full}/closed_loop.csv")))
summary = json.load(open(f"{full}/summary.json"))
warm_summary = json.load(open(f"{warm}/summary.json"))
start, end = int(loop["window_start_ps"]), int(loop["window_end_ps"])
# The server's link (switch -> h0) in the window: every byte, retransmissions included.
rows = [r for r in csv.DictReader(open(f"{full}/throughput.csv"))
        if r["link"] == "switch->h0" and int(r["start_ps"]) >= start and int(r["end_ps"]) <= end]
link = sum(int(r["bytes"]) for r in rows) * 8 / ((end - start) * 1e-12) / 1e9
oos = summary["nic"]["uc_out_of_sequence"]
window_oos = oos - warm_summary["nic"]["uc_out_of_sequence"]
text = open(stdout).read()
retx = re.search(r"(\d+) WQEs retransmitted", text).group(1)
timeouts, probes, failovers = re.search(
    r"(\d+) timeouts, (\d+) tail probes, (\d+) failovers", text).groups()
spurious, refuted = re.search(
    r"(\d+) spurious timeouts, (\d+) failovers of live paths", text).groups()
print(f"{prefix},{float(loop['goodput_gbps']):.2f},{link:.2f},{loop['window_drops']},"
      f"{window_oos},{summary['drops']['total']},{oos},{retx},{timeouts},{probes},{failovers},"
      f"{spurious},{refuted}")
