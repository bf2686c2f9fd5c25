#!/usr/bin/env bash
# Real-world goodput, in ONE run, as ratios to a ceiling measured in the same run (the machine's
# speed drifts; ratios much less). 64 KiB messages, MTU 4096, one core per side (taskset).
#  1. Loopback (127.0.0.1 -> 127.0.0.2): a raw UDP blast with GSO on send and GRO on receive in
#     4096-byte segments (the ceiling of a UDP data path), the same bytes shaped as RoCE packets
#     (the ceiling of any RoCE data path on sockets: real_socket_blast.cc, roce_send), kernel TCP, and bifrost-perf write_bw
#     over plain RC, Bifröst UC (Swift CC, and no CC) and Bifröst RC, and two of them again with
#     --gso (UDP GSO/GRO batches).
#  2. The testbed (root only): Bifröst UC (Swift CC with its loss gate, which drops to its
#     minimum window on a loss only with a queue or more loss than corruption explains; without
#     the gate, on every loss; swift-md, which halves at most once per RTT; and no CC), and plain RC (128 in flight)
#     without loss and at 1% random loss; each lossy run as a ratio of its own lossless run. A run that fails (plain
#     RC: retry_exceeded) is reported as collapsed with what it moved before failing.
# Usage: bench/real_loopback.sh [build dir, default build/release] [seconds per run, default 4]
# Informative only: it never fails on a figure.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release} secs=${2:-4}
perf=$build/tools/bifrost-perf blast=$build/bench/real_socket_blast
for f in "$perf" "$blast"; do
  [ -x "$f" ] || { echo "real_loopback: $f is missing (scripts/build.sh release)" >&2; exit 1; }
done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
results=$dir/results.txt
: >"$results"

record() { echo "$1 $2" >>"$results"; }  # name gbps (or "fail:<MB moved>")

# perf_json FILE -> Gb/s from a bifrost-perf --out_json file
perf_gbps() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["bw_avg_Gbps"])' "$1"; }

blast_pair() {  # name mode port
  local name=$1 mode=$2 port=$3
  local recv=$mode
  [ "$mode" = tcp ] || recv=udp  # the RoCE-shaped sends are received as plain UDP
  taskset -c 0 "$blast" "$recv-recv" 127.0.0.2 "$port" >"$dir/$name.json" &
  local pid=$!
  sleep 0.3
  taskset -c 1 "$blast" "$mode-send" 127.0.0.2 "$port" "$secs" 65536
  wait "$pid"
  record "$name" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["gbps"])' "$dir/$name.json")"
}

perf_pair() {  # name server_prefix client_prefix server_ip flags...
  local name=$1 sp=$2 cp=$3 ip=$4
  shift 4
  local flags="write_bw -s 65536 -m 4096 -D $secs --timeout 5 $*"
  $sp taskset -c 0 "$perf" $flags -B "$ip" >"$dir/$name.server" 2>&1 &
  local pid=$!
  sleep 0.3
  if $cp taskset -c 1 "$perf" $flags "$ip" --out_json "$dir/$name.json" >"$dir/$name.client" 2>&1; then
    record "$name" "$(perf_gbps "$dir/$name.json")"
  else
    local moved
    moved=$(grep -o '[0-9.]* MB, retransmitted' "$dir/$name.client" | tail -n 1 | cut -d' ' -f1)
    record "$name" "fail:${moved:-0}:$(grep -o 'error: .*' "$dir/$name.client" | head -n 1 | cut -c1-90)"
  fi
  wait "$pid" 2>/dev/null || true
}

echo "== loopback, 64 KiB messages, MTU 4096, ${secs} s per run"
blast_pair udp_gso_gro udp 4791
# The same bytes shaped as RoCE UC WRITEs (three GSO sends per message, header/payload/ICRC
# iovecs, ICRC computed): the ceiling of any RoCE data path on UDP sockets; then without the ICRC.
blast_pair udp_roce_shaped roce 4792
blast_pair udp_roce_shaped_no_icrc roce-noicrc 4793
blast_pair kernel_tcp tcp 18700
perf_pair plain_rc "" "" 127.0.0.2 -p 18701
perf_pair bifrost_uc "" "" 127.0.0.2 -p 18702 --transport bifrost-uc
perf_pair bifrost_uc_cc_none "" "" 127.0.0.2 -p 18704 --transport bifrost-uc --cc none
perf_pair bifrost_rc "" "" 127.0.0.2 -p 18703 --transport bifrost-rc
# With UDP GSO/GRO batching (bifrost-to-bifrost only: see real/udp_port.h).
perf_pair plain_rc_gso "" "" 127.0.0.2 -p 18705 --gso
perf_pair bifrost_uc_cc_none_gso "" "" 127.0.0.2 -p 18706 --transport bifrost-uc --cc none --gso
perf_pair bifrost_uc_gso "" "" 127.0.0.2 -p 18707 --transport bifrost-uc --gso
perf_pair bifrost_rc_gso "" "" 127.0.0.2 -p 18708 --transport bifrost-rc --gso

if [ "$(id -u)" -eq 0 ]; then
  echo "== testbed (veth between namespaces), 128 messages in flight, 0 and 1% random loss"
  for loss in 0 10; do
    for t in bifrost_uc bifrost_uc_no_gate bifrost_uc_swift_md bifrost_uc_cc_none plain_rc; do
      case $t in
        bifrost_uc) flags="--transport bifrost-uc" ;;
        bifrost_uc_no_gate) flags="--transport bifrost-uc --loss_gate 0" ;;
        bifrost_uc_swift_md) flags="--transport bifrost-uc --cc swift-md" ;;
        bifrost_uc_cc_none) flags="--transport bifrost-uc --cc none" ;;
        plain_rc) flags="--transport rc" ;;
      esac
      flags="write_bw -s 65536 -m 4096 -D $secs --timeout 5 $flags"
      if scripts/testbed.sh --loss-permille "$loss" \
        --b "taskset -c 0 $perf $flags -B \$BF_B_IP > $dir/tb.server 2>&1" \
        --a "taskset -c 1 $perf $flags \$BF_B_IP --out_json $dir/tb.json > $dir/tb.client 2>&1" \
        >/dev/null 2>&1; then
        record "testbed_${t}_loss$loss" "$(perf_gbps "$dir/tb.json")"
      else
        record "testbed_${t}_loss$loss" "fail:$(grep -o '[0-9.]* MB, retransmitted' "$dir/tb.client" | tail -n 1 | cut -d' ' -f1):$(grep -o 'error: .*' "$dir/tb.client" | head -n 1 | cut -c1-90)"
      fi
    done
  done
else
  echo "== testbed part skipped: needs root (network namespaces)"
fi

python3 - "$results" <<'PY'
import sys
rows = [l.rstrip("\n").split(" ", 1) for l in open(sys.argv[1])]
r = dict(rows)
def val(name):
    v = r.get(name)
    return None if v is None or v.startswith("fail") else float(v)
ceiling = val("udp_gso_gro")
roce_ceiling = val("udp_roce_shaped")
print(f"{'run':36} {'Gb/s':>8} {'ratio':>8} {'vs RoCE shape':>14}")
for name, v in rows:
    base = ceiling
    testbed = name.startswith("testbed_")
    if testbed:
        base = val(name.replace("_loss10", "_loss0")) if name.endswith("_loss10") else None
    if v.startswith("fail"):
        _, moved, why = (v.split(":", 2) + ["", ""])[:3]
        print(f"{name:36} {'failed':>8} {'':>8}  after {moved or '?'} MB: {why}")
        continue
    g = float(v)
    ratio = f"{g / base:.3f}" if base else "-"
    to_shape = f"{g / roce_ceiling:.3f}" if roce_ceiling and not testbed else ""
    print(f"{name:36} {g:8.3f} {ratio:>8} {to_shape:>14}")
print("ratios: loopback rows vs udp_gso_gro (and vs udp_roce_shaped, what a RoCE data path on")
print("sockets can reach at best); testbed loss10 rows vs the same transport's loss0 row")
PY
