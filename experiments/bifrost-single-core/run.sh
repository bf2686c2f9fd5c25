#!/usr/bin/env bash
# Fig. 6 and Table 2 of the Bifröst paper (§4.2.1): single-thread throughput and CPU of RPCs
# per request size, for ARDMA, Bifröst RC, Bifröst UC and kernel TCP. The paper: one client and
# one server thread, one connection, I/O depth 8, requests 4 KB-1 MB, 128 B responses, CX-6 Dx
# 100 Gb/s; Table 2 at MTU 1024. Ours: the real runtime on loopback (soft RNICs over UDP), the
# client and the server each on one core, the same RPC shape. ARDMA moves requests above 32 KB
# with RDMA READ (§4.2.1): its proxy's server pulls them (--read_threshold 32768);
# ardma_write, the proxy with one WRITE per request instead, is a sensitivity row. Every RDMA
# stack runs in three modes:
#   poll    bifrost-perf spins on its sockets (the throughput of one core, Fig. 6(a))
#   events  it sleeps in epoll between events (its CPU is the work it does, Fig. 6(b))
#   profile as events, under perf record: attribute.py splits both processes' CPU samples into
#           the kernel, the soft NIC, the transport and the benchmark (attribution.csv). Only
#           the shares are used: perf slows events runs (2.5 -> 0.8-1.4 Gb/s at 256 KB RC)
# Kernel TCP (bifrost-tcp-rpc) blocks in recv, so it has one mode. profile needs root and perf.
# Writes results.csv (one row per run, bifrost_rpc_bw.sh's columns), attribution.csv and
# single_core.png here.
#
#   experiments/bifrost-single-core/run.sh          # 3 reps x 65 runs x 2 s: about 20 min
#   REPS=1 SIZES="16384 1048576" MTUS="1024 4096" experiments/bifrost-single-core/run.sh
set -euo pipefail
source "$(dirname "$0")/../common.sh"
source "$(dirname "$0")/../bifrost_rpc_bw.sh"
reps="${REPS:-3}"
seconds="${SECONDS_PER_RUN:-2}"
sizes="${SIZES:-4096 16384 65536 262144 1048576}"
stacks="${STACKS:-ardma ardma_write bifrost_rc bifrost_uc}"
mtus="${MTUS:-1024}"
default_modes="poll events"
[ "$(id -u)" = 0 ] && command -v perf >/dev/null && default_modes="poll events profile"
modes="${MODES:-$default_modes}"

stack_flags() {
  case "$1" in
    # Our proxy of ARDMA: the NIC's RC alone, no chunking, no software CC; requests above
    # 32 KB (ARDMA's SEND limit in experiments/bifrost-loss-throughput, paper's SEND
    # threshold) as a descriptor the server pulls with one RDMA READ, as ARDMA does.
    ardma) echo "--transport bifrost-rc --config paper --cc none --chunking 0 --read_threshold 32768" ;;
    # Sensitivity: the same proxy with one WRITE per large request (the earlier proxy).
    ardma_write) echo "--transport bifrost-rc --config paper --cc none --chunking 0" ;;
    bifrost_rc) echo "--transport bifrost-rc --config paper" ;;
    bifrost_uc) echo "--transport bifrost-uc --config paper" ;;
    *) echo "unknown stack $1" >&2; exit 2 ;;
  esac
}

# One kernel-TCP run as a row with rpc_bw's columns (the RDMA-only ones empty).
tcp_run() {  # rep, size
  local rep=$1 size=$2 prefix
  sched_prefix 1
  local prefix_server=("${prefix[@]}")
  sched_prefix 0
  local prefix_client=("${prefix[@]}")
  port=$((port + 1))
  "${prefix_server[@]}" "$tcp" -B "$server_ip" -p "$port" --out_json "$tmp/tcp_server.json" \
    >/dev/null &
  local pid=$!
  sleep 0.3
  "${prefix_client[@]}" "$tcp" "$server_ip" -p "$port" -s "$size" -D "$seconds" \
    --out_json "$tmp/tcp_client.json" >/dev/null
  wait "$pid"
  python3 - "$tmp" "kernel_tcp/-/-/$size" "$rep" "$sched" >>"$out" <<'PY'
import json, sys
c = json.load(open(f"{sys.argv[1]}/tcp_client.json"))
s = json.load(open(f"{sys.argv[1]}/tcp_server.json"))
cpu = (c["cpu_s"] + s["cpu_s"]) / c["requests"] * 1e6
print(",".join(str(v) for v in [
    sys.argv[2], sys.argv[3], sys.argv[4], 1, "", "", c["requests"], f"{c['seconds']:.4f}",
    f"{c['requests_per_s']:.0f}", "", f"{cpu:.3f}", f"{c['cpu_s']:.3f}", f"{s['cpu_s']:.3f}"]
    + [""] * 14 + [1]))
PY
  tail -1 "$out" >&2
}

out="${OUT:-$here/results.csv}"
attribution="${ATTRIBUTION:-$here/attribution.csv}"
rpc_bw_start
echo "config,rep,side,$(/usr/bin/python3 "$here/attribute.py" -H)" >"$attribution"
build_tools bifrost-tcp-rpc
tcp="$build/tools/bifrost-tcp-rpc"
for rep in $(seq 1 "$reps"); do
  for size in $sizes; do
    for mtu in $mtus; do
      for mode in $modes; do
        event_flag=() client_wrap=() server_wrap=()
        [ "$mode" = poll ] || event_flag=(-e)
        if [ "$mode" = profile ]; then
          client_wrap=(perf record -q -F 1999 -o "$tmp/client.perf" --)
          server_wrap=(perf record -q -F 1999 -o "$tmp/server.perf" --)
        fi
        for stack in $stacks; do
          read -r -a flags <<<"$(stack_flags "$stack")"
          config="$stack/$mode/$mtu/$size"
          rpc_bw_run "$config" "$rep" -D "$seconds" "${flags[@]}" \
            "${event_flag[@]}" -m "$mtu" -s "$size" --response_size 128 --depth 8 -q 1
          [ ${#client_wrap[@]} -gt 0 ] || continue
          for side in client server; do
            echo "$config,$rep,$side,$(/usr/bin/python3 "$here/attribute.py" "$tmp/$side.perf")" \
              >>"$attribution"
          done
        done
      done
    done
    [ "${TCP:-1}" = 1 ] && tcp_run "$rep" "$size"
  done
done
[ "${PLOT:-1}" = 1 ] && /usr/bin/python3 "$here/plot.py" "$out" "$attribution" "$here/single_core.png"
exit 0
