"""results.csv of rogue-convergence: per series, the mean per-flow goodput, Jain's index of the
flows' means and its minimum over the intervals, the samples' coefficient of variation, and the
pause totals, beside the paper's numbers (section 5.7).
Usage: summarise.py SAMPLES_CSV PAUSES_CSV"""
import csv
import statistics
import sys
from collections import defaultdict

# Fig. 16: mean per-flow Gb/s and Jain's index; the PFC test: how long pauses were sent (us).
PAPER = {
    "rogue": ("9.55", "0.999"), "timely": ("8.76", "0.992"), "dcqcn": ("9.74", "0.999"),
    "pfc_rogue": ("", "", "0"), "pfc_timely": ("", "", "1563"), "pfc_dcqcn": ("", "", "620"),
}


def jain(xs):
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)) if xs and any(xs) else 1.0


samples = defaultdict(lambda: defaultdict(list))   # series -> flow -> [gbps]
intervals = defaultdict(lambda: defaultdict(list))  # series -> start -> [gbps]
for row in csv.DictReader(open(sys.argv[1])):
    samples[row["series"]][row["flow"]].append(float(row["gbps"]))
    intervals[row["series"]][row["start_s"]].append(float(row["gbps"]))
pauses = {row["series"]: row for row in csv.DictReader(open(sys.argv[2]))}

print("series,flows,mean_flow_gbps,paper_mean_gbps,jain_run,paper_jain,jain_min_interval,"
      "cv_samples,pauses,paused_us_max_port,paper_pause_us,drops")
for series, p in pauses.items():
    flows = samples[series]
    means = [statistics.fmean(v) for v in flows.values()]
    every = [x for v in flows.values() for x in v]
    per_interval = [jain(v) for v in intervals[series].values() if len(v) > 1]
    paper = PAPER.get(series, ("", "", ""))
    cv = statistics.pstdev(every) / statistics.fmean(every) if every and any(every) else 0
    print("{},{},{:.3f},{},{:.4f},{},{:.4f},{:.3f},{},{},{},{}".format(
        series, p["flows"], statistics.fmean(means) if means else 0, paper[0],
        jain(means), paper[1], min(per_interval) if per_interval else 1, cv, p["pauses"],
        p["paused_us_max_port"], paper[2] if len(paper) > 2 else "", p["drops"]))
