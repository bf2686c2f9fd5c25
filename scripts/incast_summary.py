#!/usr/bin/python3
"""The N -> 1 testbed's summary (scripts/testbed.sh --clients N): per-client goodput, the
aggregate and Jain's index.

Reads DIR/client<i>.json (bifrost-perf --out_json of client i, when the client command wrote
$BF_JSON) and DIR/samples.csv (time_s, client, bytes: the UDP 4791 bytes the server's nftables
counted from each client, cumulative). Goodput is what bifrost-perf measured (bytes of completed
verbs over its run); the wire rate is the server's byte counter over the window in which every
client was sending, so it includes retransmissions and headers but is measured over one common
window, which per-client run averages are not.
"""
import argparse
import csv
import json
import os
import sys


def jain(xs):
    """Jain's fairness index: 1 when all equal, 1/n when one has everything."""
    xs = list(xs)
    square_sum = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * square_sum) if square_sum > 0 else 0.0


def read_samples(path, clients):
    """{client: [(t, cumulative bytes)]}, clients numbered 1..N."""
    series = {c: [] for c in range(1, clients + 1)}
    if not os.path.exists(path):
        return series
    with open(path) as f:
        for row in csv.DictReader(f):
            c = int(row["client"])
            if c in series:
                series[c].append((float(row["time_s"]), int(row["bytes"])))
    return series


def common_window(series):
    """The sample times (first, last) between which every client's counter grew: from the
    first sample at which all have started to the last before any stopped. None if none."""
    times = sorted({t for s in series.values() for t, _ in s})
    if not times or any(len(s) < 2 for s in series.values()):
        return None
    def started(s):  # last sample still at the first value
        return max(t for t, b in s if b == s[0][1])
    def stopped(s):  # first sample already at the final value
        return min(t for t, b in s if b == s[-1][1])
    begin = max(started(s) for s in series.values())
    end = min(stopped(s) for s in series.values())
    return (begin, end) if end > begin else None


def bytes_at(s, t):
    return max((b for u, b in s if u <= t), default=0)


def interval_rates(series, interval_s, window):
    """Rates between sample times inside the window, each span the first sample at least
    interval_s after the previous one (sample times are shared: one read takes every counter,
    and they are uneven on a loaded host): [(t at the span's end, [Gb/s per client])]."""
    begin, end = window
    times = sorted({t for s in series.values() for t, _ in s if begin <= t <= end})
    rows, t0 = [], begin
    for t in times:
        if t - t0 < interval_s - 1e-9:
            continue
        rows.append((t, [(bytes_at(s, t) - bytes_at(s, t0)) * 8 / (t - t0) / 1e9
                         for s in series.values()]))
        t0 = t
    return rows


def summarise(clients, directory, interval_s):
    out = {"clients": clients, "per_client": []}
    goodputs = []
    for i in range(1, clients + 1):
        entry = {"client": i}
        path = os.path.join(directory, f"client{i}.json")
        if os.path.exists(path):
            doc = json.load(open(path))
            row = doc["results"][0]
            entry.update(goodput_gbps=row["bw_avg_Gbps"], seconds=row["seconds"],
                         iterations=row["iterations"],
                         verified=doc["verified"], corrupt=doc["corrupt"],
                         missing=doc["missing"],
                         retransmissions=doc["counters"].get("retransmissions", 0))
            goodputs.append(row["bw_avg_Gbps"])
        out["per_client"].append(entry)
    if len(goodputs) == clients:
        out["aggregate_goodput_gbps"] = sum(goodputs)
        out["jain_goodput"] = jain(goodputs)
    drops = os.path.join(directory, "bottleneck_drops")
    if os.path.exists(drops) and open(drops).read().strip():
        out["bottleneck_drops"] = int(open(drops).read().split()[0])
    series = read_samples(os.path.join(directory, "samples.csv"), clients)
    window = common_window(series)
    if window:
        begin, end = window
        wire = [(bytes_at(s, end) - bytes_at(s, begin)) * 8 / (end - begin) / 1e9
                for s in series.values()]
        for entry, w in zip(out["per_client"], wire):
            entry["wire_gbps"] = w
        out["window_s"] = [begin, end]
        out["aggregate_wire_gbps"] = sum(wire)
        out["jain_wire"] = jain(wire)
        rows = interval_rates(series, interval_s, window) if interval_s > 0 else []
        out["intervals"] = [{"t": t, "gbps": r, "jain": jain(r)} for t, r in rows]
    return out


def print_summary(s):
    print(f"incast summary, {s['clients']} clients -> 1 server")
    for e in s["per_client"]:
        good = f"goodput {e['goodput_gbps']:.3f} Gb/s" if "goodput_gbps" in e else "no JSON"
        wire = f", wire {e['wire_gbps']:.3f} Gb/s" if "wire_gbps" in e else ""
        print(f"  client {e['client']}: {good}{wire}")
    if "aggregate_goodput_gbps" in s:
        print(f"  aggregate goodput {s['aggregate_goodput_gbps']:.3f} Gb/s, "
              f"Jain {s['jain_goodput']:.4f}")
    if "bottleneck_drops" in s:
        print(f"  the bottleneck's queue dropped {s['bottleneck_drops']} packets")
    if "window_s" in s:
        b, e = s["window_s"]
        per = [i["jain"] for i in s["intervals"]]
        worst = f", worst interval Jain {min(per):.4f}" if per else ""
        print(f"  all sending {b:.2f}-{e:.2f} s: aggregate wire {s['aggregate_wire_gbps']:.3f} "
              f"Gb/s, Jain {s['jain_wire']:.4f}{worst}")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--clients", type=int, required=True)
    p.add_argument("--dir", required=True)
    p.add_argument("--interval", type=float, default=1.0, help="seconds per Jain interval")
    p.add_argument("--out", help="write the summary as JSON here")
    a = p.parse_args()
    s = summarise(a.clients, a.dir, a.interval)
    print_summary(s)
    if a.out:
        json.dump(s, open(a.out, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
