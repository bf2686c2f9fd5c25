#!/usr/bin/env bash
# Fig. 7 of the Bifröst paper: goodput vs request size under random loss, ARDMA against
# Bifröst over UC. Writes results.csv (the paper's setup: the headline and its sensitivity
# rows), results_100g.csv (our earlier 100 Gb/s setup, a sensitivity run), results_product.csv
# (the product default's loss gate up to 1% random loss, issue 25), throughput.png and
# product.png.
#
#   experiments/bifrost-loss-throughput/run.sh                     # full run (about 8 minutes)
#   DURATION_US=50000 experiments/bifrost-loss-throughput/run.sh   # quicker, noisier ARDMA rows
#
# The paper's setup (§4.2.2, Table 4): cluster A's 25 Gb/s CX-4 Lx NICs, one port live, random
# loss on the ToR port toward the server (so only client -> server packets are lost: requests,
# and the READ responses a server pulls large requests with), I/O depth 8, requests 1 KB-1 MB
# with small responses (128 B, as in Fig. 6). Ours: MTU 1024 (Table 2's, the clusters' MTU),
# a 6 us round trip, and ARDMA modelled as SEND up to 32 KB and RDMA READ above (§4.2.1).
set -euo pipefail
source "$(dirname "$0")/../common.sh"
duration="${DURATION_US:-200000}"  # simulated time per point, us (ARDMA's QP timeout is 67 ms)
sizes="1024 4096 16384 65536 262144 1048576"
losses="0.000244140625 0.0009765625"  # 1/4096 and 1/1024
seed="${SEED:-1}"
send_max=32768  # ARDMA (and Bifröst, §3.2) send requests up to 32 KB by SEND

cd "$root"
build_tools bifrost-rnic-loss bifrost-transport-loss
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
header="scheme,size,loss,goodput,retransmitted,timeouts"

# rnic_row LABEL SIZE LOSS FLAGS...: the NIC's own RC between two soft RNICs (no Bifröst).
rnic_row() {
  local label=$1 size=$2 loss=$3
  shift 3
  "$build/tools/bifrost-rnic-loss" -q --message-bytes "$size" --loss "$loss" --seed "$seed" \
    --csv "$tmp/rc.csv" "$@" >/dev/null
  python3 - "$tmp/rc.csv" "$label" "$size" "$loss" <<'PY'
import csv, sys
row = next(csv.DictReader(open(sys.argv[1])))
print(f"{sys.argv[2]},{sys.argv[3]},{sys.argv[4]},{float(row['goodput_fraction']):.4f},"
      f"{row['retransmitted']},{row['timeouts']}")
PY
}

# ardma LABEL SIZE LOSS FLAGS...: ARDMA at the paper's setup.
ardma() {
  local label=$1 size=$2 loss=$3 opcode=send
  shift 3
  [ "$size" -le "$send_max" ] || opcode=read
  rnic_row "$label" "$size" "$loss" --engine gbn --rate-gbps 25 --mtu 1024 --rtt-us 6 \
    --outstanding 8 --loss-on data --opcode "$opcode" --duration-us "$duration" "$@"
}

# bifrost SUFFIX FLAGS...: one Bifröst connection; every mode in --mode gives a row.
bifrost() {
  local suffix=$1
  shift
  "$build/tools/bifrost-transport-loss" -q --duration-us "$duration" --seed "$seed" \
    --csv "$tmp/bf.csv" "$@" >/dev/null
  python3 - "$tmp/bf.csv" "$suffix" <<'PY'
import csv, sys
for row in csv.DictReader(open(sys.argv[1])):
    print(f"bifrost_{row['mode']}{sys.argv[2]},{row['size']},{row['loss']},"
          f"{float(row['goodput']):.4f},{row['retransmitted_wqes']},{row['timeouts']}")
PY
}

paper_setup="--rate-gbps 25 --mtu 1024 --rtt-us 6 --loss-on data --response-bytes 128 --depth 8"
out="$here/results.csv"
echo "$header" >"$out"
for loss in $losses; do
  for size in $sizes; do
    echo "== paper setup: size $size loss $loss" >&2
    # Headline: ARDMA with the READ requester waiting for its QP timer after a lost response
    # (14: 67 ms, perftest's and the tool's default), and Bifröst with the paper's config.
    ardma ardma "$size" "$loss" --read-gap timeout --gbn-timeout 14 >>"$out"
    # shellcheck disable=SC2086
    bifrost _paper --config paper --mode uc,rc --size "$size" --loss "$loss" $paper_setup >>"$out"
    # Sensitivity: ARDMA re-reading at once (the spec's implied NAK), or with a 1 ms timer;
    # Bifröst UC with the product default (base RTT = the wire's; its loss gate on), the same
    # without the gate (every loss cuts, the default before issue 25), with a 50 us base RTT
    # and losses cutting the window only while the RTT shows a queue (loss_needs_queuing, the
    # gate's queue sign alone), and the paper config without CC.
    ardma ardma_reissue "$size" "$loss" --read-gap reissue --gbn-timeout 14 >>"$out"
    ardma ardma_timeout_1ms "$size" "$loss" --read-gap timeout --gbn-timeout 8 >>"$out"
    # shellcheck disable=SC2086
    bifrost _default --mode uc --size "$size" --loss "$loss" $paper_setup >>"$out"
    # shellcheck disable=SC2086
    bifrost _default_no_gate --mode uc --loss-gate false --size "$size" --loss "$loss" \
      $paper_setup >>"$out"
    # shellcheck disable=SC2086
    bifrost _default_queuing --mode uc --base-rtt-us 50 --loss-gate false \
      --loss-needs-queuing true --size "$size" --loss "$loss" $paper_setup >>"$out"
    # shellcheck disable=SC2086
    bifrost _paper_cc_none --config paper --cc none --mode uc --size "$size" --loss "$loss" \
      $paper_setup >>"$out"
    # The paper config with our tail-loss probe (as paper() had it until 2026-11-27), and with
    # a 150 us RTO floor instead of our 500 us (the paper gives none): what a lost lone tail
    # of the minimum window costs.
    # shellcheck disable=SC2086
    bifrost _paper_tail_probe --config paper --tail-probe true --mode uc --size "$size" \
      --loss "$loss" $paper_setup >>"$out"
    # shellcheck disable=SC2086
    bifrost _paper_rto_150us --config paper --min-rto-us 150 --mode uc --size "$size" \
      --loss "$loss" $paper_setup >>"$out"
  done
done
column -s, -t "$out" >&2

# Our earlier setup, kept as a sensitivity run: 100 Gb/s, MTU 4096, loss both ways, one-way
# messages (no responses), plain RC WRITEs with a 1.05 ms QP timeout.
out100="$here/results_100g.csv"
echo "$header" >"$out100"
for loss in $losses; do
  for size in $sizes; do
    echo "== 100 Gb/s setup: size $size loss $loss" >&2
    rnic_row plain_rc "$size" "$loss" --engine gbn --mtu 4096 --outstanding 8 --gbn-timeout 8 \
      --duration-us 20000 >>"$out100"
    duration=20000 bifrost "" --mode uc,rc --size "$size" --loss "$loss" --depth 8 >>"$out100"
  done
done

# The product default up to 1% random loss (issue 25: keep >= 80% of the lossless goodput), at
# the paper's setup and at 100 Gb/s with MTU 4096 and loss both ways (the testbed's shape): the
# default (loss gate on), without the gate, and the gate's queue sign alone
# (loss_needs_queuing), each lossless, at 1/1024 and at 1/100.
outp="$here/results_product.csv"
echo "setup,$header" >"$outp"
for setup in fig7 100g; do
  flags=$paper_setup
  [ "$setup" = fig7 ] || flags="--rate-gbps 100 --mtu 4096 --rtt-us 6 --depth 8"
  echo "== product default, $setup setup" >&2
  for variant in ":" "_no_gate:--loss-gate false" \
    "_queuing:--loss-gate false --loss-needs-queuing true"; do
    # shellcheck disable=SC2086
    duration="${PRODUCT_DURATION_US:-50000}" bifrost "_default${variant%%:*}" --mode uc \
      --size "${sizes// /,}" --loss 0,0.0009765625,0.01 $flags ${variant#*:} |
      sed "s/^/$setup,/" >>"$outp"
  done
done
column -s, -t "$outp" >&2
/usr/bin/python3 "$here/plot.py" "$out" "$here/throughput.png"
/usr/bin/python3 "$here/plot_product.py" "$outp" "$here/product.png"
