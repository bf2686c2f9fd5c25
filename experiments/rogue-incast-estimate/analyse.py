"""One run of Fig. 10: per sender and interval, the measured goodput and RoGUE's estimate.

Measured: the bytes the sender's link carried in the interval (throughput.csv counts Ethernet
frames with FCS, without preamble and gap), times the payload share of an MTU frame, 2048 of
2110 bytes (the first frame of a segment carries 16 bytes of RETH more: ignored, 0.05%).
Estimate: the mean of cwnd / RTT (and of the RTT itself) over the sender's RTT samples in the interval that reached the
window (cc_trace.csv, held-off samples left out), as the paper computes it at every update.
"""
import csv
import sys
from collections import defaultdict

MTU, FRAME = 2048, 2048 + 14 + 20 + 8 + 12 + 4 + 4  # Ethernet, IPv4, UDP, BTH, ICRC, FCS

out_dir, label = sys.argv[1], sys.argv[2]
rows = [r for r in csv.DictReader(open(f"{out_dir}/throughput.csv"))
        if r["link"].startswith("h") and r["link"].endswith("->switch") and r["link"] != "h0->switch"]
estimates = defaultdict(list)
rtts = defaultdict(list)
intervals = sorted({(int(r["start_ps"]), int(r["end_ps"])) for r in rows})
for t in csv.DictReader(open(f"{out_dir}/cc_trace.csv")):
    if t["event"] != "sample" or t["held_off"] == "1" or t["window"] != "write":
        continue
    at_ps = float(t["time_us"]) * 1e6
    for start, end in intervals:
        if start <= at_ps < end:
            estimates[(t["host"], start)].append(float(t["estimate_gbps"]))
            rtts[(t["host"], start)].append(float(t["rtt_us"]))
            break
for r in rows:
    start, end = int(r["start_ps"]), int(r["end_ps"])
    host = r["link"].split("->")[0]
    seconds = (end - start) * 1e-12
    goodput = int(r["bytes"]) * 8 / seconds / 1e9 * MTU / FRAME
    est = estimates.get((host, start), [])
    mean_est = sum(est) / len(est) if est else float("nan")
    rtt = rtts.get((host, start), [])
    mean_rtt = sum(rtt) / len(rtt) if rtt else float("nan")
    print(f"{label},{seconds:g},{host},{start * 1e-12:g},{goodput:.4f},{mean_est:.4f},{len(est)},"
          f"{mean_rtt:.2f}")
