"""Fig. 12's verdict per series: events whose active flows all came within +-10% of the fair
share before the next event (and stayed), the longest and median time to get there, and the
worst deviation in the last interval before each next event.
Usage: summarise.py EVENTS_CSV"""
import csv
import sys
from collections import defaultdict

rows = defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    rows[r["series"]].append(r)
print("series,events,converged_events,median_converge_s,max_converge_s,worst_last_deviation,"
      "pass_all_within_10pct")
for name, evs in rows.items():
    times = sorted(float(r["converge_s"]) for r in evs if r["converge_s"])
    worst = max(float(r["last_interval_worst_deviation"]) for r in evs)
    med = times[(len(times) - 1) // 2] if times else float("nan")
    mx = times[-1] if times else float("nan")
    print(f"{name},{len(evs)},{len(times)},{med:.3f},{mx:.3f},{worst:.3f},"
          f"{'yes' if len(times) == len(evs) else 'no'}")
