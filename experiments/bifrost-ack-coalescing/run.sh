#!/usr/bin/env bash
# Fig. 4(a) of the Bifröst paper: IOPS of 128 B RPCs with immediate software ACKs (one per WQE)
# against coalesced ACKs (32 WQEs / 32 KB / hint / 120 us timer). The cost of an ACK is CPU and
# NIC packet processing, which the simulator does not charge, so this runs in the real runtime:
# two bifrost-perf rpc_bw processes (soft RNIC, Bifröst UC) on loopback, one connection, I/O
# depth 8, 128 B requests and responses. Configurations, interleaved per repetition so slow
# drifts of this shared 2-core VM hit all of them alike:
#   immediate   --ack_every 1
#   coalesced   the transport's defaults (hint also on the tail of every burst)
#   paper_hint  coalesced, hint only on the last WQE the window allows (A.1.2 to the letter)
# Writes results.csv (one row per run) and iops.png here.
#
#   experiments/bifrost-ack-coalescing/run.sh                 # 7 repetitions x 4 s (~3 min)
#   REPS=3 SECONDS_PER_RUN=2 experiments/bifrost-ack-coalescing/run.sh   # quick look
#   SCHED=cfs OUT=$PWD/experiments/bifrost-ack-coalescing/results_cfs.csv \
#     experiments/bifrost-ack-coalescing/run.sh                 # no real-time priority
#
# SCHED=fifo (the default as root) runs both processes under SCHED_FIFO 10, one per core
# (taskset): other jobs on the VM then cannot delay their wakeups by milliseconds, which
# otherwise fires the transport's tail probes and RTOs spuriously (see README.md).
set -euo pipefail
source "$(dirname "$0")/../common.sh"
reps="${REPS:-7}"
seconds="${SECONDS_PER_RUN:-4}"
default_sched=cfs
[ "$(id -u)" = 0 ] && default_sched=fifo
sched="${SCHED:-$default_sched}"
size=128
depth=8

cd "$root"
CMAKE_BUILD_PARALLEL_LEVEL=1 build_tools bifrost-perf
perf="$build/tools/bifrost-perf"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
out="${OUT:-$here/results.csv}"
echo "config,rep,sched,requests,seconds,requests_per_s,acks_per_request,cpu_us_per_request,cpu_client_s,cpu_server_s,rtt_p50_us,rtt_p99_us,rtt_p999_us,retransmitted_wqes,tail_probes,timeouts,failovers,attempt" >"$out"
failures="${out%.csv}_failures.log"
: >"$failures"

port=$((21000 + $$ % 20000))
# One run; a run that fails (the transport gave up on a connection, see README.md) is logged
# in *_failures.log and tried again, at most 3 attempts.
run() {  # config, rep, then flags
  local config=$1 rep=$2
  shift 2
  local attempt
  for attempt in 1 2 3; do
    if run_once "$config" "$rep" "$attempt" "$@"; then return 0; fi
  done
  echo "run $config $rep failed 3 times" >&2
  exit 1
}

run_once() {  # config, rep, attempt, then flags
  local config=$1 rep=$2 attempt=$3
  shift 3
  local prefix_client=() prefix_server=()
  if [ "$sched" = fifo ]; then
    prefix_server=(taskset -c 1 chrt -f 10)
    prefix_client=(taskset -c 0 chrt -f 10)
  fi
  port=$((port + 1))
  "${prefix_server[@]}" "$perf" rpc_bw --transport bifrost-uc -s "$size" --depth "$depth" \
    -D "$seconds" "$@" -B 127.0.0.2 -p "$port" --timeout 5 >"$tmp/server.txt" 2>&1 &
  local pid=$!
  sleep 0.3
  if ! "${prefix_client[@]}" "$perf" rpc_bw --transport bifrost-uc -s "$size" --depth "$depth" \
    -D "$seconds" "$@" 127.0.0.2 -p "$port" --timeout 5 --out_json "$tmp/client.json" \
    >"$tmp/client.txt" 2>&1; then
    wait "$pid" || true
    echo "$config rep $rep attempt $attempt: $(grep -h 'error:' "$tmp/client.txt" | head -1)" \
      | tee -a "$failures" >&2
    return 1
  fi
  wait "$pid"
  python3 - "$tmp/client.json" "$config" "$rep" "$sched" "$attempt" >>"$out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
row, rpc = r["results"][0], r["rpc"]
t, pt = r["counters"]["transport"], r["peer_counters"]["transport"]
print(",".join(str(v) for v in [
    sys.argv[2], sys.argv[3], sys.argv[4], rpc["requests"], f"{row['seconds']:.4f}",
    f"{row['msg_rate_Mpps'] * 1e6:.0f}", f"{rpc['acks_per_request']:.4f}",
    f"{rpc['cpu_us_per_request']:.3f}", f"{rpc['cpu_seconds_here']:.3f}",
    f"{rpc['cpu_seconds_peer']:.3f}", f"{row['t_typical_us']:.1f}", f"{row['t_p99_us']:.1f}",
    f"{row['t_p999_us']:.1f}", t["retransmitted_wqes"] + pt["retransmitted_wqes"],
    t["tail_probes"] + pt["tail_probes"], t["timeouts"] + pt["timeouts"],
    t["failovers"] + pt["failovers"], sys.argv[5]]))
PY
  tail -1 "$out" >&2
}

for rep in $(seq 1 "$reps"); do
  run immediate "$rep" --ack_every 1
  run coalesced "$rep"
  run paper_hint "$rep" --hint_when_idle 0
done
/usr/bin/python3 "$here/plot.py" "$here"
