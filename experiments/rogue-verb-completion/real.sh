#!/usr/bin/env bash
# Fig. 7 in the real runtime (bifrost-perf over the namespace testbed): read_lat, one READ at a
# time, post to completion on the event loop's clock, plain RC (the soft NIC alone: RoCE) against
# --transport rogue-rc, at 64 B and 1 MB. The "line" is a tbf of LINE_MBIT on each side's veth and
# RoGUE is told that rate (--line_rate), so its segments are the paper's 64 KB (the 10 Gb/s
# size) and its pacing keeps the tbf's queue empty. MTU 2048 (the paper's ConnectX-3 Pro). RoGUE's
# modelled host CPU is off here (bifrost-perf's default): the real runtime pays its real costs.
# Appends rows labelled real_<LINE_MBIT>mbit to results.csv (run.sh calls it as root).
set -euo pipefail
source "$(dirname "$0")/../common.sh"
perf_setup 1000
# Sleep on events (-e) unless SPIN=1: two spinning processes on a loaded 2-core host wait whole
# scheduler ticks (4 ms) when preempted (experiments/rogue-rtt-accuracy, "Real runtime").
if [ "${SPIN:-0}" = 1 ]; then events=""; else events="-e"; fi

for size in 64 1048576; do
  n=$([ "$size" -gt 65536 ] && echo 200 || echo 2000)
  perf_pair "roce_$size" read_lat -s "$size" -n "$n" -m 2048 --timeout 30 $events
  perf_pair "rogue_$size" read_lat -s "$size" -n "$n" -m 2048 --timeout 30 $events --transport rogue-rc \
    --line_rate "$gbps"
done

/usr/bin/python3 - "$tmp" "$line" "$here/results.csv" <<'PY'
import csv, json, sys
tmp, line, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
fields = next(csv.reader(open(out)))
with open(out, "a", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields)
    for size in (64, 1048576):
        for scheme in ("roce", "rogue"):
            doc = json.load(open(f"{tmp}/{scheme}_{size}.json"))
            r = doc["results"][0]
            counters = doc.get("counters", {}).get("rogue", {})
            row = {k: "" for k in fields}
            row.update(label=f"real_{line:g}mbit", scheme=scheme, signal_cost_us=0,
                       clock_read_cost_us=0, min_batches=2 if scheme == "rogue" else "",
                       op="read", bytes=size, signal_every=1, groups=1,
                       measured=r["iterations"], mean_us=f"{r['t_avg_us']:.4f}",
                       p50_us=f"{r['t_typical_us']:.4f}", p99_us=f"{r['t_p99_us']:.4f}",
                       gbps=f"{size * 8 / r['t_avg_us'] / 1e3:.4f}")
            w.writerow(row)
            print(f"real {scheme:6} {size:8} B: mean {r['t_avg_us']:10.2f} us, "
                  f"typical {r['t_typical_us']:10.2f} us, p99 {r['t_p99_us']:10.2f} us"
                  + (f", signals {counters.get('signals')}, clock reads "
                     f"{counters.get('clock_reads')}" if counters else ""))
PY
