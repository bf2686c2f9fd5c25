"""Fig. 9's points: the median per-flow goodput of each series at each loss rate, beside the
paper's reading (it gives no table: the text says big verbs beat small ones at every rate and
that RoGUE "performs well" up to 0.025% loss, 1/4K)."""
import csv
import statistics
import sys
from collections import defaultdict

points = defaultdict(list)
extra = {}
for r in csv.DictReader(open(sys.argv[1])):
    key = (r["series"], int(r["drop_every"]))
    points[key].append(float(r["goodput_gbps"]))
    extra[key] = r
print("series,verb,flow_bytes,drop_every,loss_rate,median_goodput_gbps,drops,nic_retransmitted,"
      "nic_timeouts,shadow_switches")
for (series, every), values in sorted(points.items(), key=lambda kv: (kv[0][0], -kv[0][1] if kv[0][1] else -10**9)):
    r = extra[(series, every)]
    print(f"{series},{r['verb']},{r['flow_bytes']},{every},{r['loss_rate']},"
          f"{statistics.median(values):.3f},{r['drops']},{r['nic_retransmitted']},"
          f"{r['nic_timeouts']},{r['shadow_switches']}")
