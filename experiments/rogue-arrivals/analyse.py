"""One series of rogue-arrivals: appends its whole per-flow samples to samples.csv and one row
per event (a flow's start or finish, from flows.csv) to events.csv: how many flows share the
link after it, the fair share (the link's goodput over them), whether every active flow came
within +-10% of it before the next event, and how long that took.
Usage: analyse.py OUT_DIR SERIES GOODPUT_GBPS SAMPLES_CSV EVENTS_CSV"""
import csv
import sys

out, series, goodput, samples_path, events_path = sys.argv[1:6]
goodput = float(goodput)
BAND = 0.10

flows = {}
for r in csv.DictReader(open(f"{out}/flows.csv")):
    start = int(r["start_ps"]) / 1e12
    finish = int(r["finish_ps"]) / 1e12 if r["finish_ps"] else float("inf")
    flows[r["id"]] = (start, finish, r["src"])
samples = []  # (start, end, flow, gbps), whole intervals only
for r in csv.DictReader(open(f"{out}/flow_throughput.csv")):
    if r["whole"] == "1":
        samples.append((int(r["start_ps"]) / 1e12, int(r["end_ps"]) / 1e12, r["flow"],
                        float(r["gbps"])))
with open(samples_path, "a") as f:
    for s, e, flow, g in samples:
        f.write(f"{series},{flow},{flows[flow][2]},{s:.6f},{e:.6f},{g:.4f}\n")

end_of_run = max(e for _, e, _, _ in samples)
events = sorted({(t, kind, fid) for fid, (s, fin, _) in flows.items()
                 for t, kind in ((s, "start"), (fin, "finish")) if t < end_of_run})
intervals = sorted({(s, e) for s, e, _, _ in samples})
by_interval = {}
for s, e, flow, g in samples:
    by_interval.setdefault((s, e), {})[flow] = g

with open(events_path, "a") as f:
    for i, (t, kind, fid) in enumerate(events):
        nxt = events[i + 1][0] if i + 1 < len(events) else end_of_run
        act = [k for k, (s, fin, _) in flows.items() if s <= t and fin > t]
        fair = goodput / len(act)
        # Intervals wholly between this event and the next, every active flow sampled whole.
        inside = [iv for iv in intervals if iv[0] >= t and iv[1] <= nxt
                  and all(k in by_interval[iv] for k in act)]
        ok = [all(abs(by_interval[iv][k] - fair) <= BAND * fair for k in act) for iv in inside]
        # Converged from the first interval after which every interval stays within the band.
        converged = None
        for j in range(len(inside)):
            if all(ok[j:]):
                converged = inside[j][1] - t
                break
        worst = max((abs(by_interval[iv][k] - fair) / fair for iv in inside[-1:] for k in act),
                    default=float("nan"))
        f.write(f"{series},{t:.6f},{kind},{fid},{len(act)},{fair:.4f},{len(inside)},"
                f"{sum(ok)},{'' if converged is None else f'{converged:.3f}'},{worst:.4f}\n")
