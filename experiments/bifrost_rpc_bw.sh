# Sourced by the run.sh of Bifröst experiments in the real runtime (after common.sh): one
# `bifrost-perf rpc_bw` run on loopback, a server and a client process, its client's JSON as one
# CSV row. Set `out` before use (the CSV; rpc_bw_start writes its header and empties the
# *_failures.log beside it); SCHED picks `sched` (see sched_prefix). rpc_bw_start builds
# bifrost-perf and sets `perf` and `tmp`.
#   rpc_bw_start
#   rpc_bw_run CONFIG REP FLAGS...     # FLAGS: bifrost-perf's for both sides (--transport, -s, ...)
# RPC_SERVER_IP / RPC_CLIENT_IP: the two processes' loopback addresses (default 127.0.0.2 and
# the control connection's, 127.0.0.1). Each process binds UDP 4791 on its address, so two
# experiments that run on one host at the same time need different ones.
# Optional arrays `server_wrap` / `client_wrap`: a command put before that side's bifrost-perf
# and its scheduling prefix (e.g. perf record ... --, which then runs unpinned, under CFS).

rpc_bw_start() {
  cd "$root"
  CMAKE_BUILD_PARALLEL_LEVEL=1 build_tools bifrost-perf
  perf="$build/tools/bifrost-perf"
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  echo "config,rep,sched,qps,ack_every,ack_timer_us,requests,seconds,requests_per_s,acks_per_request,cpu_us_per_request,cpu_client_s,cpu_server_s,rtt_p50_us,rtt_p99_us,rtt_p999_us,eq1_rtt_p50_us,eq1_rtt_p99_us,acks_timed,ack_delay_p50_us,ack_delay_p99_us,local_delay_p50_us,local_delay_p99_us,retransmitted_wqes,tail_probes,timeouts,failovers,attempt" >"$out"
  failures="${out%.csv}_failures.log"
  : >"$failures"
  port=$((21000 + $$ % 20000))
  server_ip="${RPC_SERVER_IP:-127.0.0.2}"
  client_bind=()
  [ -z "${RPC_CLIENT_IP:-}" ] || client_bind=(-B "$RPC_CLIENT_IP")
}

# One run; a run that fails (the transport gave up on a connection) is logged in
# *_failures.log and tried again, at most 3 attempts.
rpc_bw_run() {  # config, rep, then flags
  local attempt
  for attempt in 1 2 3; do
    if rpc_bw_once "$1" "$2" "$attempt" "${@:3}"; then return 0; fi
  done
  echo "run $1 $2 failed 3 times" >&2
  exit 1
}

# Sets the array `prefix` to what runs a process on core $1 under `sched`:
#   fifo  pinned, SCHED_FIFO 10: the core even on a loaded host. But a process that keeps its
#         core busy is paused by the kernel for 50 ms of every second (sched_rt_runtime_us
#         950000), longer than bifrost-perf's default Bifröst RC retry budget (3 x 16.8 ms) and
#         RTO floor (5 ms): half the runs then failed over (up to 4 times) and resent WQEs a
#         real NIC would never lose. So fifo runs also get `fifo_timers` (default: the RC QP timeout
#         perftest uses, 67 ms x 3 attempts, and a 20 ms RTO floor; set the array to change it).
#         (nice -20 does not help: the other agents' work sits in other cgroups, which CFS
#         shares the cores with equally.)
#   cfs   neither
fifo_timers=(--bifrost_rc_timeout 14 --min_rto 20000)
# SCHED picks it; fifo as root (chrt needs it), else cfs.
default_sched=cfs
[ "$(id -u)" = 0 ] && default_sched=fifo
sched="${SCHED:-$default_sched}"
sched_prefix() {  # core
  case "$sched" in
    fifo) prefix=(taskset -c "$1" chrt -f 10) ;;
    cfs) prefix=() ;;
    *) echo "unknown sched '$sched': use fifo or cfs" >&2; exit 2 ;;
  esac
}

rpc_bw_once() {  # config, rep, attempt, then flags
  local config=$1 rep=$2 attempt=$3 prefix
  shift 3
  sched_prefix 1
  local prefix_server=("${prefix[@]}")
  sched_prefix 0
  local prefix_client=("${prefix[@]}") timers=()
  [ "$sched" = fifo ] && timers=("${fifo_timers[@]}")
  port=$((port + 1))
  local common=(rpc_bw "${timers[@]}" "$@" -p "$port" --timeout 10)
  ${server_wrap[@]+"${server_wrap[@]}"} "${prefix_server[@]}" "$perf" "${common[@]}" -B "$server_ip" \
    >"$tmp/server.txt" 2>&1 &
  local pid=$!
  sleep 0.3
  if ! ${client_wrap[@]+"${client_wrap[@]}"} "${prefix_client[@]}" "$perf" "${common[@]}" \
    ${client_bind[@]+"${client_bind[@]}"} "$server_ip" \
    --out_json "$tmp/client.json" >"$tmp/client.txt" 2>&1; then
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
