"""Fig. 10's numbers per series: p10 and median of the flows' interval goodputs, the same of
RoGUE's estimates, Jain's index over the flows in each interval (its minimum) and over the
flows' whole-run means, beside the paper's."""
import csv
import math
import sys
from collections import defaultdict

PAPER = {"p10": 1.12, "median": 1.20, "ideal": 1.21}
LINE, MTU, FRAME, GAP = 10.0, 2048, 2110, 20


def pct(xs, p):
    xs = sorted(xs)
    k = max(1, math.ceil(p / 100 * len(xs)))
    return xs[k - 1]


def jain(xs):
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


series = defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    series[r["series"]].append(r)
print("series,interval_s,samples,p10_gbps,median_gbps,estimate_p10_gbps,estimate_median_gbps,"
      "jain_min_per_interval,jain_of_means,rtt_median_us,ideal_gbps_with_gap,ideal_gbps_no_gap,"
      "paper_p10_gbps,paper_median_gbps,paper_ideal_gbps")
for name, rows in series.items():
    good = [float(r["goodput_gbps"]) for r in rows]
    est = [float(r["estimate_gbps"]) for r in rows if r["estimate_gbps"] != "nan"]
    by_interval, by_flow = defaultdict(list), defaultdict(list)
    for r in rows:
        by_interval[r["start_s"]].append(float(r["goodput_gbps"]))
        by_flow[r["flow"]].append(float(r["goodput_gbps"]))
    jain_min = min(jain(v) for v in by_interval.values())
    jain_means = jain([sum(v) / len(v) for v in by_flow.values()])
    rtt = [float(r["rtt_mean_us"]) for r in rows if r["rtt_mean_us"] != "nan"]
    ideal_gap = LINE / 8 * MTU / (FRAME + GAP)
    ideal_no_gap = LINE / 8 * MTU / FRAME
    print(f"{name},{rows[0]['interval_s']},{len(good)},{pct(good, 10):.3f},{pct(good, 50):.3f},"
          f"{pct(est, 10) if est else float('nan'):.3f},{pct(est, 50) if est else float('nan'):.3f},"
          f"{jain_min:.4f},{jain_means:.4f},{pct(rtt, 50) if rtt else float('nan'):.1f},{ideal_gap:.3f},{ideal_no_gap:.3f},"
          f"{PAPER['p10']},{PAPER['median']},{PAPER['ideal']}")
