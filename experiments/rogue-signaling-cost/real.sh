#!/usr/bin/env bash
# Figs. 2, 3, 6 in the real runtime (bifrost-perf over the namespace testbed, a tbf of LINE_MBIT
# each way, default 300 Mbit/s: the soft NIC's event loop keeps up with it on a loaded host; MTU
# 2048): read_bw for SECONDS_PER_RUN at each verb size, plain RC (the soft NIC
# alone, every verb signalled as bifrost-perf's tests do) against --transport rogue-rc (told the
# line rate, so its segments are the paper's 64 KB); and Fig. 6's UC WRITE pair at 1 MB verbs
# (RoCE's 1 MB verbs against RoGUE's 64 KB segments of them). Per run: goodput, RoGUE's counters,
# and the getrusage CPU seconds of the client (requester) and the server (responder) processes
# over the run alone (cpu_seconds_run: start-up and bootstrap left out).
# Writes real.csv; run.sh calls it as root.
set -euo pipefail
source "$(dirname "$0")/../common.sh"
perf_setup 300
duration="${SECONDS_PER_RUN:-4}"
net="-m 2048 --timeout 30 -D $duration"

# At most 8 verbs and 512 KiB outstanding: plain RC has no congestion control, and more READ
# responses than the tbf's queue holds are lost and go back N (with 32 x 4 KB outstanding its
# READs failed with retry_exceeded here). Both schemes get the same depth.
depth() { echo $(($1 >= (512 << 10) ? 1 : ((512 << 10) / $1 > 8 ? 8 : (512 << 10) / $1))); }
for size in 4096 16384 65536 262144 1048576; do
  t=$(depth "$size")
  perf_pair "rc_read_$size" read_bw -s "$size" -t "$t" $net
  perf_pair "rogue-rc_read_$size" read_bw -s "$size" -t "$t" $net --transport rogue-rc \
    --line_rate "$gbps"
done
perf_pair "uc_write_1048576" write_bw -s 1048576 -t 1 $net -c UC
perf_pair "rogue-uc_write_1048576" write_bw -s 1048576 -t 1 $net --transport rogue-uc \
  --line_rate "$gbps"

/usr/bin/python3 - "$tmp" "$line" "$here/real.csv" <<'PY'
import glob, json, os, sys
tmp, line, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
with open(out, "w") as f:
    f.write("line_mbit,scheme,op,bytes,seconds,verbs,gbps,signals_per_gb,wqes_per_gb,"
            "clock_reads_per_gb,cpu_client_s_per_gb,cpu_server_s_per_gb,cpu_client_pct,"
            "cpu_server_pct\n")
    for path in sorted(glob.glob(f"{tmp}/*.json")):
        scheme, op, size = os.path.basename(path)[:-5].split("_")
        doc = json.load(open(path))
        r = doc["results"][0]
        gb = r["iterations"] * int(size) / 1e9
        rogue = doc["counters"].get("rogue", {})
        # The plain QP signals every verb (bifrost-perf's tests): one WQE, one signal each.
        signals = rogue.get("signals", r["iterations"])
        wqes = rogue.get("segments_posted", r["iterations"])
        reads = rogue.get("clock_reads", 0)
        # The CPU of the run alone (bifrost-perf's cpu_seconds_run), each process.
        cpu_c = doc["counters"]["cpu_seconds_run"]
        cpu_s = doc["peer_counters"]["cpu_seconds_run"]
        f.write(f"{line:g},{scheme},{op},{size},{r['seconds']:.3f},{r['iterations']},"
                f"{r['bw_avg_Gbps']:.4f},{signals / gb:.1f},{wqes / gb:.1f},{reads / gb:.1f},"
                f"{cpu_c / gb:.4f},{cpu_s / gb:.4f},{100 * cpu_c / r['seconds']:.1f},"
                f"{100 * cpu_s / r['seconds']:.1f}\n")
        print(f"real {scheme:8} {op:5} {size:8} B: {r['bw_avg_Gbps']:.3f} Gb/s, "
              f"{signals / gb:9.0f} signals/GB, {reads / gb:9.0f} clock reads/GB, CPU "
              f"{cpu_c / gb:.3f} / {cpu_s / gb:.3f} s per GB (client / server)")
print(f"wrote {out}")
PY
