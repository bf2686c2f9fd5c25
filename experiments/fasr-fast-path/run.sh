#!/usr/bin/env bash
# FaSR's receiver: the fraction of loss-recovery episodes handled on the fast path (one PSN
# missing) vs the slow path (bitmap blocks from the shared pool), the FaSR paper's Fig. 9(b)
# (see README.md). Builds bifrost-rnic-loss in the Release build (build/release, -j1), runs one
# FaSR QP under random and bursty loss, and writes results.csv and fast_path.png next to this
# script. About one minute once the tool is built.
#
#   experiments/fasr-fast-path/run.sh                        # full run
#   DURATION_US=100000 experiments/fasr-fast-path/run.sh     # quick look (10x fewer episodes)
set -euo pipefail
source "$(dirname "$0")/../common.sh"
# Simulated time per point at 100 Gb/s, us. The paced series runs 8x longer (its QP sends 16x
# fewer packets per second); the wall time of a point follows the packets simulated.
duration="${DURATION_US:-1000000}"
losses="0.0001,0.001,0.005,0.01,0.02,0.05"
seed="${SEED:-1}"

cd "$root"
build_tools bifrost-rnic-loss
tool="$build/tools/bifrost-rnic-loss"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

run() {
  local name="$1"
  shift
  "$tool" -q --engine fasr --loss "$losses" --seed "$seed" --json "$tmp/$name.json" "$@"
}
echo "== random loss, one QP at 100 Gb/s (8 KB WRITEs, RTT 6 us, MTU 1024)" >&2
run random --duration-us "$duration"
echo "== bursty loss (Gilbert model): bursts of 2 line-rate slots (2 packets at 100 Gb/s)" >&2
run burst2 --burst-len 2 --duration-us "$duration"
echo "== bursty loss (Gilbert model): bursts of 4 line-rate slots (4 packets at 100 Gb/s)" >&2
run burst4 --burst-len 4 --duration-us "$duration"
echo "== random loss, the QP paced at 6.25 Gb/s: its fair share of 100 Gb/s among 16 QPs" >&2
run share16 --qp-rate-gbps 6.25 --duration-us "$((duration * 8))"

/usr/bin/python3 - "$tmp" "$here" <<'PY'
import csv, json, os, sys
tmp, here = sys.argv[1], sys.argv[2]
rows = []
for series in ("random", "burst2", "burst4", "share16"):
    with open(os.path.join(tmp, series + ".json")) as f:
        doc = json.load(f)
    s = doc["scenario"]
    for p in doc["points"]:
        episodes = p["fast_recoveries"] + p["slow_recoveries"]
        packets = p["fast_path_packets"] + p["slow_path_packets"]
        k = p["packets_per_rtt"]
        rows.append({
            "series": series,
            "loss": p["loss"],
            "burst_len": s["burst_len"],
            "qp_rate_gbps": s["qp_rate_gbps"] or s["rate_gbps"],
            "packets_per_rtt": round(k, 2),
            "duration_us": s["duration_us"],
            "data_packets_sent": p["data_packets_sent"],
            "data_packets_lost": p["data_packets_lost"],
            "episodes": episodes,
            "fast_recoveries": p["fast_recoveries"],
            "slow_recoveries": p["slow_recoveries"],
            "fast_fraction": round(p["fast_recoveries"] / episodes, 4) if episodes else "",
            "fast_path_packets": p["fast_path_packets"],
            "slow_path_packets": p["slow_path_packets"],
            "fast_packet_fraction": round(p["fast_path_packets"] / packets, 4) if packets else "",
            # The premise's formula for independent loss: none of the other k - 1 packets of the
            # QP in the RTT after the loss is lost (k = packets per RTT). Not meaningful for bursts.
            "independent_formula": round((1 - p["loss"]) ** (k - 1), 4),
            "pool_peak_blocks": p["pool_peak_blocks"],
            "pool_fallbacks": p["pool_fallbacks"],
            "timeouts": p["timeouts"],
            "goodput_fraction": round(p["goodput_fraction"], 4),
            "verify_failures": p["verify_failures"],
            "qp_error": p["qp_error"],
        })
with open(os.path.join(here, "results.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)
PY
/usr/bin/python3 "$here/plot.py" "$here"
echo "results in $here/results.csv, fast_path.png" >&2
