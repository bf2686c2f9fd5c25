#!/usr/bin/env bash
# Table 1 in the real runtime (bifrost-perf over the namespace testbed): the "line" is a tbf of
# LINE_MBIT on each side's veth, and RoGUE is told that line rate (--line_rate), so its pacing
# keeps the tbf's queue empty: one QP, uncongested, 64 KB verbs at line rate. MTU 2048 (the
# paper's ConnectX-3 Pro, as in the simulator rows).
#   oracle    bifrost-perf write0_lat (plain RC): zero-byte signalled WRITEs one at a time, post to
#             completion on the event loop's clock
#   read2     bifrost-perf read_lat -s 2 (plain RC): a 2-byte READ's round trip, beside the
#             oracle (the within-bound column uses the WRITE(0) median)
#   rc_read   read_bw --transport rogue-rc: the READ window's samples (--rogue_trace)
#   uc_write  write_bw --transport rogue-uc: the WRITE window's samples
# Samples held off after a rate change are left out (RoGUE computes them but Vegas never sees
# them); the held-off count is in the table. Appends its rows (config "real_<LINE_MBIT>mbit")
# to results.csv; run.sh calls it when run as root.
set -euo pipefail
source "$(dirname "$0")/../common.sh"
perf_setup 1000
duration="${SECONDS_PER_RUN:-4}"
net="-m 2048 --timeout 20"
# The latency tests sleep on events (-e) unless SPIN=1: spinning on a loaded 2-core host turns
# preemptions into 4 ms-tick tails (README, "Real runtime").
if [ "${SPIN:-0}" = 1 ]; then lat="$net"; else lat="$net -e"; fi

perf_pair oracle write0_lat -n 2000 $lat
perf_pair read2 read_lat -s 2 -n 2000 $lat
perf_pair rc_read read_bw $net --transport rogue-rc -s 65536 --line_rate "$gbps" -D "$duration" \
  --rogue_trace "$tmp/rc_read.trace.csv"
perf_pair uc_write write_bw $net --transport rogue-uc -s 65536 --line_rate "$gbps" -D "$duration" \
  --rogue_trace "$tmp/uc_write.trace.csv"

/usr/bin/python3 - "$tmp" "$line" "$here/results.csv" <<'PY'
import csv, json, math, sys
tmp, line, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
def nearest_rank(xs, q):  # as bifrost-perf's latency columns
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, math.ceil(q * len(xs)) - 1))] if xs else 0.0
bound = 1 + 2048 * 8 / (line * 1e6) * 1e6  # 1 us + one MTU at the line rate, in us
rows = []
for name, test in (("rc_write0_oracle", "oracle"), ("rc_read2_oracle", "read2")):
    r = json.load(open(f"{tmp}/{test}.json"))["results"][0]
    rows.append((name, [r["t_p10_us"], r["t_typical_us"], r["t_p90_us"]], r["iterations"], 0,
                 0.0, None))
for name, window in (("rc_read", "read"), ("uc_write", "write")):
    samples = [r for r in csv.DictReader(open(f"{tmp}/{name}.trace.csv"))
               if r["event"] == "sample" and r["window"] == window]
    taken = [float(r["rtt_us"]) for r in samples if r["held_off"] == "0"]
    held = len(samples) - len(taken)
    good = json.load(open(f"{tmp}/{name}.json"))["results"][0]["bw_avg_Gbps"]
    rows.append((name, [nearest_rank(taken, q) for q in (0.1, 0.5, 0.9)], len(taken), held, good,
                 taken))
mid = rows[0][1][1]  # the WRITE(0) oracle's median
with open(out, "a") as f:
    for name, (p10, p50, p90), n, held, good, taken in rows:
        within = 1.0 if taken is None else sum(abs(t - mid) <= bound for t in taken) / max(len(taken), 1)
        f.write(f"real_{line:g}mbit,{name},{p10:.4f},{p50:.4f},{p90:.4f},{n},{held},{good:.4f},"
                f"{within:.4f},{bound:.4f}\n")
        print(f"real {name:18} p10/p50/p90 {p10:8.2f} {p50:8.2f} {p90:8.2f} us, {n} samples, "
              f"{held} held off, {good:.3f} Gb/s, {within:.1%} within {bound:.2f} us of the oracle")
PY
