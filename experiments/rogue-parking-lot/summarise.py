"""Figs. 11 and 13's numbers per series: each flow's mean goodput (whole samples), their mean
and Jain's index, the probe's median and 90th percentile RTT, beside the paper's.
Usage: summarise.py SAMPLES_CSV TOTALS_CSV"""
import csv
import sys
from collections import defaultdict

PAPER = {"mean_gbps": 2.27, "jain": 0.995, "p50_us": 58, "p90_us": 75}
# Chain links each sender's flow crosses to reach host 7 (parking_lot, hosts_per_switch = 2).
CHAIN = {"0": 3, "2": 2, "4": 1, "6": 0}


def jain(xs):
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


flows = defaultdict(lambda: defaultdict(list))
for r in csv.DictReader(open(sys.argv[1])):
    flows[r["series"]][r["flow"]].append(float(r["gbps"]))
totals = {r["series"]: r for r in csv.DictReader(open(sys.argv[2]))}
print("series,mean_gbps,jain_of_means,jain_run_sim,h0_gbps,h2_gbps,h4_gbps,h6_gbps,"
      "probe_p50_us,probe_p90_us,probes,drops,paper_mean_gbps,paper_jain,paper_p50_us,"
      "paper_p90_us,pass_jain_0.99")
for name, by_flow in flows.items():
    means = {h: sum(v) / len(v) for h, v in by_flow.items()}
    t = totals[name]
    j = jain(list(means.values()))
    per = ",".join(f"{means.get(h, float('nan')):.3f}" for h in ("0", "2", "4", "6"))
    print(f"{name},{sum(means.values()) / len(means):.3f},{j:.4f},{float(t['jain_run']):.4f},"
          f"{per},{float(t['p50_us']):.1f},{float(t['p90_us']):.1f},{t['probes']},{t['drops']},"
          f"{PAPER['mean_gbps']},{PAPER['jain']},{PAPER['p50_us']},{PAPER['p90_us']},"
          f"{'yes' if j >= 0.99 else 'no'}")
