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
source "$(dirname "$0")/../bifrost_rpc_bw.sh"
reps="${REPS:-3}"
seconds="${SECONDS_PER_RUN:-4}"
qps="${QPS:-8}"
configs="${CONFIGS:-immediate count4 count8 count16 paper timer30 timer60 timer240 timer480 default}"
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

out="${OUT:-$here/results.csv}"
rpc_bw_start
for rep in $(seq 1 "$reps"); do
  for config in $configs; do
    read -r -a flags <<<"$(flags_of "$config")"
    rpc_bw_run "$config" "$rep" --transport bifrost-uc -s "$size" --depth "$depth" -q "$qps" \
      -D "$seconds" "${flags[@]}"
  done
done
[ "${PLOT:-1}" = 1 ] && /usr/bin/python3 "$here/plot.py" "$here"
exit 0
