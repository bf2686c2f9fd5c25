#!/usr/bin/env bash
# FaSR at many QPs, the FaSR paper's Fig. 7(b) (16..5K QPs, no loss) and Fig. 7(c) (5K QPs at
# several loss rates), with each NIC's QP-context cache sized like the paper's (see README.md).
# Builds bifrost-rnic-loss in build/release and writes results.csv and qp_scale.png next to this
# script. About fifteen minutes once the tool is built.
#
#   experiments/fasr-qp-scale/run.sh                    # packet round-robin, every point
#   BURSTS="1 8" experiments/fasr-qp-scale/run.sh       # and 8-packet bursts per QP turn
#   QPS="16 5000" SENSITIVITY=0 experiments/fasr-qp-scale/run.sh   # quick look
#   RUN_DIR=/tmp/qps experiments/fasr-qp-scale/run.sh   # keep each point's JSON; a rerun skips
#                                                       # the points already there
#   SHAPE=pair experiments/fasr-qp-scale/run.sh         # two NICs, WRITEs only (results_pair.csv)
#   LEAN=1 ...                                          # also FaSR with its lean SR headers
#   RESULTS=results_x.csv PNG=x.png ...                 # a partial run's own table and plot
set -euo pipefail
source "$(dirname "$0")/../common.sh"
qps_list="${QPS:-16 64 256 1024 2048 3072 4096 5000}"
losses="${LOSSES:-0.001,0.005,0.01,0.02,0.05}"
bursts="${BURSTS:-1}"
measure_us="${MEASURE_US:-50000}"
seed="${SEED:-1}"
# Context SRAM, the paper's testbed (section V-A): "1.4MB for QPC" on the FPGA, for IRN+, SRNIC and
# FaSR alike; a ConnectX-6-like GBN NIC caches 256 bare 256-byte contexts (its throughput drops
# past 256 QPs, section V-C). IRN+'s bitmaps at the paper's BDP of 500 slots (section II): 20 B +
# five 63-byte bitmaps per QP, so 2,368 of its 591-byte contexts fit.
sram=1400000
cx6=65536
irn_bdp=500
# Context fetches in flight at once (rnic::ContextFetches): a DMA engine overlaps its PCIe reads.
# The paper gives no number; 8 is our assumption, 0 (one miss after another, each stalling the
# receive pipeline) is the sensitivity series.
fetches="${FETCHES:-8}"
# The paper's shape (the headline): "1 server with 3 clients ... the server issues RD/WR
# requests" (section V-C). Side a is the server; side b stands for the three clients' NICs (their
# context caches and receive pipelines together, --clients 3); odd-numbered QP pairs READ, even
# ones WRITE (the paper gives no mix: half and half is our reading). SHAPE=pair is the two-NIC,
# WRITE-only setup this folder ran before issue 26's last round, kept as a sensitivity.
shape="${SHAPE:-paper}"
case "$shape" in
  paper) shape_args=(--opcode mixed --clients 3) results=results.csv png=qp_scale.png ;;
  pair) shape_args=(--opcode write) results=results_pair.csv png=qp_scale_pair.png ;;
  *) echo "run.sh: SHAPE must be paper or pair, not '$shape'" >&2; exit 2 ;;
esac
# A partial run (other QPS/BURSTS) can write its own table instead of replacing the headline's.
results="${RESULTS:-$results}" png="${PNG:-$png}"

cd "$root"
build_tools bifrost-rnic-loss
tool="$build/tools/bifrost-rnic-loss"
if [ -n "${RUN_DIR:-}" ]; then
  tmp="$RUN_DIR"
  mkdir -p "$tmp"
else
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
fi

# Every point: 8 KB WRITEs, two posted per QP, QPs starting 12 us apart (one cold 1 us miss each,
# which the 110 Gb/s receive pipeline works off in 10 us), then `measure_us` of measurement. Timers
# and ACKs at the tool's defaults (RTO_low/high 100/320 us, QP timeout 14, ACK every 8 packets
# bounded by the 8 us ACK delay), except that the FPGA engines (IRN, SRNIC, FaSR) ACK every packet
# as the paper's stack does ("Upon receiving a new packet, it returns an ACK", section IV; README).
# Until issue 20 every engine also had --ack-every 1 and RTOs of 2/4 ms and --gbn-timeout 10, a
# workaround for ACKs that waited for 8 packets of a QP (3.5 ms at 5K QPs).
point() {  # name qps burst loss-list engine extra-args...
  local name="$1" qps="$2" burst="$3" loss="$4" engine="$5"
  shift 5
  [ -s "$tmp/$name.json" ] && return  # done in an earlier run into RUN_DIR
  local spread=$((qps * 12))
  local warmup=$((spread + 5000))
  "$tool" -q "${shape_args[@]}" --engine "$engine" --loss "$loss" --qps "$qps" --outstanding 2 \
    --context-fetches "$fetches" \
    --burst-packets "$burst" --start-spread-us "$spread" --warmup-us "$warmup" \
    --duration-us $((warmup + measure_us)) --seed "$seed" --json "$tmp/$name.json" "$@" >/dev/null
}
engines() {  # name-prefix qps burst loss-list
  local prefix="$1" qps="$2" burst="$3" loss="$4"
  point "$prefix-gbn" "$qps" "$burst" "$loss" gbn --context-cache-bytes "$cx6"
  point "$prefix-irn" "$qps" "$burst" "$loss" irn --context-cache-bytes "$sram" --bdp-packets "$irn_bdp" --ack-every 1
  point "$prefix-srnic" "$qps" "$burst" "$loss" srnic --context-cache-bytes "$sram" --ack-every 1
  point "$prefix-fasr" "$qps" "$burst" "$loss" fasr --context-cache-bytes "$sram" --ack-every 1
  if [ "${LEAN:-0}" = 1 ]; then
    point "$prefix-fasrlean" "$qps" "$burst" "$loss" fasr --context-cache-bytes "$sram" \
      --ack-every 1 --lean-sr-header
  fi
}
for burst in $bursts; do
  for n in $qps_list; do
    echo "== burst $burst: $n QPs, no loss" >&2
    engines "b$burst-lossless-$n" "$n" "$burst" 0
  done
  echo "== burst $burst: 5000 QPs, loss $losses" >&2
  engines "b$burst-lossy-5000" 5000 "$burst" "$losses"
done
if [ "${SENSITIVITY:-1}" = 1 ]; then
  # Serial context fetches (each miss stalls the receive pipeline in turn; the model before
  # issue 26) at 5K QPs, for the engines whose contexts do not fit (SRNIC's and FaSR's do: they
  # miss once per QP); and GBN with as many QPs as its cache holds: what it loses to loss alone.
  echo "== sensitivity: serial fetches at 5000 QPs, GBN at 256 QPs" >&2
  fetches=0 point "serial-5000-gbn" 5000 1 "0,0.01" gbn --context-cache-bytes "$cx6"
  fetches=0 point "serial-5000-irn" 5000 1 "0,0.01" irn --context-cache-bytes "$sram" \
    --bdp-packets "$irn_bdp" --ack-every 1
  point "sens-gbn-256" 256 1 "$losses" gbn --context-cache-bytes "$cx6"
  # IRN with twice the fetches (16 in flight keep up with a miss per packet at 100 Gb/s), and
  # SRNIC and FaSR with a receive pipeline that serves at line rate (no 10% headroom to work
  # off SRNIC's stalls).
  echo "== sensitivity: IRN with 16 fetches; SRNIC, FaSR with a 100 Gb/s pipeline" >&2
  fetches=16 point "fetch16-5000-irn" 5000 1 "0,0.01" irn --context-cache-bytes "$sram" \
    --bdp-packets "$irn_bdp" --ack-every 1
  for e in srnic fasr; do
    point "pipe100-5000-$e" 5000 1 "0.01" "$e" --context-cache-bytes "$sram" --ack-every 1 \
      --pipeline-gbps 100
  done
fi

/usr/bin/python3 - "$tmp" "$here" "$results" <<'PY'
import csv, glob, json, os, sys
tmp, here, results = sys.argv[1], sys.argv[2], sys.argv[3]
rows = []
for path in sorted(glob.glob(os.path.join(tmp, "*.json"))):
    name = os.path.basename(path)[:-5]
    with open(path) as f:
        doc = json.load(f)
    s = doc["scenario"]
    for p in doc["points"]:
        accesses = p["cache_hits"] + p["cache_misses"]
        rows.append({
            "figure": "7b" if "-lossless-" in name else "7c" if "-lossy-" in name else "sensitivity",
            "pipeline_gbps": s.get("pipeline_gbps", ""),
            "context_fetches": s.get("context_fetches", ""),
            "series": name,
            "opcode": s["opcode"],
            "clients": s["clients"],
            "burst_packets": s["burst_packets"],
            "ack_every_packets": s["ack_every_packets"],
            "engine": p["engine"],
            "qps": s["qps"],
            "loss": p["loss"],
            "goodput_fraction": round(p["acked_goodput_fraction"], 4),
            "completed_goodput_fraction": round(p["goodput_fraction"], 4),
            "ceiling_fraction": round(p["ceiling_fraction"], 4),
            "context_cache_bytes": s["context_cache_bytes"],
            "cache_contexts": p["cache_contexts"],
            "cache_miss_fraction": round(p["cache_misses"] / accesses, 4) if accesses else "",
            "server_cache_miss_fraction": (
                round(p["requester_cache_misses"] /
                      (p["requester_cache_hits"] + p["requester_cache_misses"]), 4)
                if p["requester_cache_hits"] + p["requester_cache_misses"] else ""),
            "pipeline_drops": p["pipeline_drops"],
            "pipeline_stalls": p["pipeline_stalls"],
            "timeouts": p["timeouts"],
            "retransmitted": p["retransmitted"],
            "data_packets_sent": p["data_packets_sent"],
            "pool_fallbacks": p["pool_fallbacks"],
            "fast_recoveries": p["fast_recoveries"],
            "slow_recoveries": p["slow_recoveries"],
            "qp_fairness": round(p["qp_fairness"], 4),
            "qp_min_fraction": round(p["qp_min_fraction"], 4),
            "verified": p["verified"],
            "verify_failures": p["verify_failures"],
            "qp_error": p["qp_error"],
            "qp_error_at_us": p["qp_error_at_us"],
            "measured_us": round(s["duration_us"] - s["warmup_us"]),
            "wall_seconds": round(p["wall_seconds"], 2),
        })
rows.sort(key=lambda r: (r["figure"], r["series"], r["qps"], r["loss"]))
with open(os.path.join(here, results), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)
PY
/usr/bin/python3 "$here/plot.py" "$here" "$results" "$png"
echo "results in $here/$results, $png" >&2
