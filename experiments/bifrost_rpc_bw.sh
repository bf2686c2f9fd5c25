# Sourced by the run.sh of Bifröst experiments in the real runtime (after common.sh): one
# `bifrost-perf rpc_bw` run on loopback, a server and a client process, its client's JSON as one
# CSV row. Set before use: `out` (the CSV; rpc_bw_start writes its header and empties the
# *_failures.log beside it), `sched` (fifo: each process pinned to a core under SCHED_FIFO 10;
# cfs: neither); rpc_bw_start builds bifrost-perf and sets `perf` and `tmp`.
#   rpc_bw_start
#   rpc_bw_run CONFIG REP FLAGS...     # FLAGS: bifrost-perf's for both sides (--transport, -s, ...)

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

rpc_bw_once() {  # config, rep, attempt, then flags
  local config=$1 rep=$2 attempt=$3
  shift 3
  local prefix_client=() prefix_server=()
  if [ "$sched" = fifo ]; then
    prefix_server=(taskset -c 1 chrt -f 10)
    prefix_client=(taskset -c 0 chrt -f 10)
  fi
  port=$((port + 1))
  local common=(rpc_bw "$@" -p "$port" --timeout 10)
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
