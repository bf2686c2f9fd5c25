"""results.csv of rogue-incast-tail: per scheme and N, the 10th-percentile per-flow throughput
(nearest rank) over the fair share 10 Gb/s / N, the mean, and how many flows failed, beside the
paper's reading of Fig. 14 (section 5.6). A flow's throughput is run.sh's: 128 MB over its FCT,
0 if it failed or did not finish, except roce-uc's unfinished flows, which count the goodput of
their complete messages (so "failed_or_unfinished" there counts flows that lost a message).
Usage: summarise.py FLOWS_CSV"""
import csv
import math
import sys
from collections import defaultdict

PAPER = {  # section 5.6's text; the figure's values are not in the text
    "rogue-rc": ">0.9", "roce": "connections failed", "roce-dcqcn": "<0.5",
    "dctcp": "near 1", "rogue-uc": "within 5% (>=0.95), goodput ~100%",
    "roce-uc": "line rate, high packet loss",
}
FAIR_SHARE_GBPS = 10.0

runs = defaultdict(list)
for row in csv.DictReader(open(sys.argv[1])):
    runs[(row["scheme"], int(row["n"]))].append((float(row["gbps"]), row["finished"] == "1"))
print("scheme,n,p10_over_fair_share,mean_over_fair_share,failed_or_unfinished,paper")
for (scheme, n), flows in runs.items():
    rates = sorted(g for g, _ in flows)
    p10 = rates[max(0, math.ceil(0.10 * len(rates)) - 1)]
    fair = FAIR_SHARE_GBPS / n
    print("{},{},{:.3f},{:.3f},{},{}".format(scheme, n, p10 / fair, sum(rates) / len(rates) / fair,
                                             sum(1 for _, done in flows if not done),
                                             PAPER.get(scheme, "")))
