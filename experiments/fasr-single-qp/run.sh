#!/usr/bin/env bash
# FaSR with one QP under random loss, the paper's Fig. 7(a): goodput vs loss for FaSR (24-byte
# SR extension, and the paper's lean 6-14 B ones) beside IRN, and FaSR's RTO swept at 1% loss
# with lean headers (see README.md). The scenario is experiments/loss-recovery-single-qp's:
# 8 KB WRITEs back to back at 100 Gb/s, 6 us base RTT, MTU 1024, loss on both directions; then
# the same with loss on the data only.
# Builds bifrost-rnic-loss in the Release build and writes results.csv next to this script.
# About a minute once the tool is built.
#
#   experiments/fasr-single-qp/run.sh
#   DURATION_US=20000 experiments/fasr-single-qp/run.sh   # quick look
set -euo pipefail
source "$(dirname "$0")/../common.sh"
duration="${DURATION_US:-200000}"
seed="${SEED:-1}"
losses="0.0001,0.001,0.005,0.01,0.02,0.05"

tool_and_tmp bifrost-rnic-loss

# run NAME LEAN RTO_LOW RTO_HIGH ENGINE LOSSES [LOSS_ON: both (default) | data] [WINDOW: 128]
run() {
  local name="$1" lean="$2" low="$3" high="$4" engine="$5" loss="$6" on="${7:-both}"
  local window="${8:-128}"
  local flags=()
  [ "$lean" = 1 ] && flags+=(--lean-sr-header)
  "$tool" -q --engine "$engine" --loss "$loss" --loss-on "$on" --rto-low-us "$low" \
    --rto-high-us "$high" --bdp-packets "$window" --duration-us "$duration" --seed "$seed" \
    "${flags[@]}" --csv "$tmp/$name.csv" | sed -n '1p;$p' >&2
  tail -n +2 "$tmp/$name.csv" | sed "s/^/$name,$lean,$on,$low,$high,$window,/" >> "$tmp/all.csv"
  header="$(head -n1 "$tmp/$name.csv")"
}

echo "== IRN and FaSR with bifrost's 24-byte SR extension, IRN's RTOs (100 / 320 us)" >&2
run irn 0 100 320 irn "$losses"
run fasr24 0 100 320 fasr "$losses"
echo "== FaSR with the paper's lean SR extensions (section IV-D)" >&2
run fasr_lean 1 100 320 fasr "$losses"
echo "== FaSR at 1% loss, lean headers, one RTO for any number in flight" >&2
for r in 320 100 50 30 20 15 10; do
  run "rto$r" 1 "$r" "$r" fasr 0.01
done
echo "== the same RTOs with the 24-byte extension" >&2
for r in 30 20; do
  run "rto${r}_24" 0 "$r" "$r" fasr 0.01
done
echo "== loss on the data only (ACKs, SACKs, AACKs and FNACKs always arrive)" >&2
run irn_data 0 100 320 irn "$losses" data
run fasr24_data 0 100 320 fasr "$losses" data
run fasr_lean_data 1 100 320 fasr "$losses" data
for r in 100 30; do
  run "rto${r}_data" 1 "$r" "$r" fasr 0.01 data
done
echo "== the in-flight cap (bdp_packets, 128 above) at 256 and 512 packets, 1% loss" >&2
for w in 256 512; do
  run "fasr_lean_w$w" 1 100 320 fasr 0.01 both "$w"
  run "rto30_w$w" 1 30 30 fasr 0.01 both "$w"
  run "irn_w$w" 0 100 320 irn 0.01 both "$w"
  run "irn_rto30_w$w" 0 30 30 irn 0.01 both "$w"
done

{
  echo "series,lean_sr_header,loss_on,rto_low_us,rto_high_us,bdp_packets,$header"
  cat "$tmp/all.csv"
} > "$here/results.csv"
echo "results in $here/results.csv" >&2
