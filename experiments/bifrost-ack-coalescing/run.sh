#!/usr/bin/env bash
# Fig. 4(a) of the Bifröst paper: IOPS of 128 B request/response RPCs against the software ACK
# triggers, a sweep over coalescing counts and timers. The cost of an ACK is CPU and NIC packet
# processing, which the simulator does not charge, so this runs in the real runtime: two
# bifrost-perf rpc_bw processes (soft RNIC, Bifröst UC) on loopback, one per side.
#
# The paper's setup (§3.4.2): a client and a server, each a CX-4 dual-port NIC, 8 threads and
# 64 QPs per node, 128 B requests and responses. Ours, scaled to one of those 8 threads: one
# thread per side (this VM has 2 cores) with that thread's 8 connections (QPs), I/O depth 8 per
# connection (the paper's RPC depth everywhere else; Fig. 4(a)'s is not given), the paper's
# configuration (--config paper: 32 WQEs / 32 KB / 120 us, hint only on the window's last WQE)
# with one trigger changed per row (QPS=64 runs all 64 QPs in the one thread: README.md says
# why that collapses on a soft NIC):
#   immediate        --ack_every 1 (an ACK per WQE: the paper's "Immediate")
#   count4 .. count16  --ack_every N, timer 120 us
#   paper            32 WQEs, 120 us: the paper's default, the headline
#   timer30 .. timer480  32 WQEs, --ack_timer N us
#   default          the product default (--config default: the hint also on each burst's tail)
# Each run also reports the ACK delay T3' - T2 and the local delay (Fig. 16, A.4; plotted by
# experiments/bifrost-ack-delay) and the eq. (1) RTT samples. Configurations are interleaved
# per repetition so slow drifts of this shared 2-core VM hit all of them alike. Writes OUT
# (results.csv: one row per run) and iops.png here.
#
#   experiments/bifrost-ack-coalescing/run.sh               # 3 reps x 10 configs x 4 s (~3 min)
#   REPS=1 SECONDS_PER_RUN=2 experiments/bifrost-ack-coalescing/run.sh   # quick look
#   QPS=1 CONFIGS="immediate coalesced paper_hint" OUT=$PWD/experiments/bifrost-ack-coalescing/results_one_connection.csv \
#     experiments/bifrost-ack-coalescing/run.sh              # our earlier one-connection setup
#   SCHED=cfs ...                                            # no real-time priority
#
# SCHED=fifo (the default as root) runs both processes under SCHED_FIFO 10, one per core
# (taskset): other jobs on the VM then cannot delay their wakeups by milliseconds, which
# otherwise fires the transport's tail probes and RTOs spuriously (see README.md).
set -euo pipefail
source "$(dirname "$0")/../common.sh"
reps="${REPS:-3}"
seconds="${SECONDS_PER_RUN:-4}"
qps="${QPS:-8}"
configs="${CONFIGS:-immediate count4 count8 count16 paper timer30 timer60 timer240 timer480 default}"
default_sched=cfs
[ "$(id -u)" = 0 ] && default_sched=fifo
sched="${SCHED:-$default_sched}"
size=128
depth="${DEPTH:-8}"

# flags_of CONFIG: the bifrost-perf flags of one configuration.
flags_of() {
  case "$1" in
    immediate) echo "--config paper --ack_every 1" ;;
    count*) echo "--config paper --ack_every ${1#count}" ;;
    paper) echo "--config paper" ;;
    timer*) echo "--config paper --ack_timer ${1#timer}" ;;
    default | coalesced) echo "--config default" ;;
    paper_hint) echo "--config default --hint_when_idle 0" ;;
    *) echo "unknown configuration $1" >&2; exit 2 ;;
  esac
}

cd "$root"
CMAKE_BUILD_PARALLEL_LEVEL=1 build_tools bifrost-perf
perf="$build/tools/bifrost-perf"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
out="${OUT:-$here/results.csv}"
echo "config,rep,sched,qps,ack_every,ack_timer_us,requests,seconds,requests_per_s,acks_per_request,cpu_us_per_request,cpu_client_s,cpu_server_s,rtt_p50_us,rtt_p99_us,rtt_p999_us,eq1_rtt_p50_us,eq1_rtt_p99_us,acks_timed,ack_delay_p50_us,ack_delay_p99_us,local_delay_p50_us,local_delay_p99_us,retransmitted_wqes,tail_probes,timeouts,failovers,attempt" >"$out"
failures="${out%.csv}_failures.log"
: >"$failures"

port=$((21000 + $$ % 20000))
# One run; a run that fails (the transport gave up on a connection, see README.md) is logged
# in *_failures.log and tried again, at most 3 attempts.
run() {  # config, rep
  local attempt
  for attempt in 1 2 3; do
    if run_once "$1" "$2" "$attempt"; then return 0; fi
  done
  echo "run $1 $2 failed 3 times" >&2
  exit 1
}

run_once() {  # config, rep, attempt
  local config=$1 rep=$2 attempt=$3
  local prefix_client=() prefix_server=() flags
  read -r -a flags <<<"$(flags_of "$config")"
  if [ "$sched" = fifo ]; then
    prefix_server=(taskset -c 1 chrt -f 10)
    prefix_client=(taskset -c 0 chrt -f 10)
  fi
  port=$((port + 1))
  local common=(rpc_bw --transport bifrost-uc -s "$size" --depth "$depth" -q "$qps"
    -D "$seconds" "${flags[@]}" -p "$port" --timeout 10)
  "${prefix_server[@]}" "$perf" "${common[@]}" -B 127.0.0.2 >"$tmp/server.txt" 2>&1 &
  local pid=$!
  sleep 0.3
  if ! "${prefix_client[@]}" "$perf" "${common[@]}" 127.0.0.2 --out_json "$tmp/client.json" \
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
    sys.argv[2], sys.argv[3], sys.argv[4], r["qps"], rpc["ack_every"], rpc["ack_timer_us"],
    rpc["requests"], f"{row['seconds']:.4f}",
    f"{row['msg_rate_Mpps'] * 1e6:.0f}", f"{rpc['acks_per_request']:.4f}",
    f"{rpc['cpu_us_per_request']:.3f}", f"{rpc['cpu_seconds_here']:.3f}",
    f"{rpc['cpu_seconds_peer']:.3f}", f"{row['t_typical_us']:.1f}", f"{row['t_p99_us']:.1f}",
    f"{row['t_p999_us']:.1f}", f"{row['eq1_rtt_p50_us']:.1f}", f"{row['eq1_rtt_p99_us']:.1f}",
    row["acks_timed"], f"{row['ack_delay_p50_us']:.1f}", f"{row['ack_delay_p99_us']:.1f}",
    f"{row['local_delay_p50_us']:.1f}", f"{row['local_delay_p99_us']:.1f}",
    t["retransmitted_wqes"] + pt["retransmitted_wqes"],
    t["tail_probes"] + pt["tail_probes"], t["timeouts"] + pt["timeouts"],
    t["failovers"] + pt["failovers"], sys.argv[5]]))
PY
  tail -1 "$out" >&2
}

for rep in $(seq 1 "$reps"); do
  for config in $configs; do run "$config" "$rep"; done
done
[ "${PLOT:-1}" = 1 ] && /usr/bin/python3 "$here/plot.py" "$here"
exit 0
