#!/usr/bin/env bash
# Fig. 7 of the Bifröst paper: goodput vs request size under random loss, plain RC (the NIC's
# go-back-N) against Bifröst over UC and over RC. One connection, I/O depth 8, 100 Gb/s,
# RTT 6 us, MTU 4096, loss in both directions. Writes results.csv and throughput.png here.
#
#   experiments/bifrost-loss-throughput/run.sh                   # full run (a few minutes)
#   DURATION_US=5000 experiments/bifrost-loss-throughput/run.sh  # quick look
set -euo pipefail
source "$(dirname "$0")/../common.sh"
duration="${DURATION_US:-20000}"  # simulated time per point, us
sizes="1024 4096 16384 65536 262144 1048576"
losses="0.000244140625 0.0009765625"  # 1/4096 and 1/1024
seed="${SEED:-1}"

cd "$root"
build_tools bifrost-rnic-loss bifrost-transport-loss
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
out="$here/results.csv"
echo "scheme,size,loss,goodput,retransmitted,timeouts" >"$out"

for loss in $losses; do
  for size in $sizes; do
    echo "== size $size loss $loss" >&2
    # Plain RC: the soft RNIC's go-back-N, QP timeout 8 (1.05 ms), retry count 7.
    # (--gbn-timeout 8 explicitly: the tool's default became 14, 67 ms, with issue 20.)
    "$build/tools/bifrost-rnic-loss" -q --engine gbn --mtu 4096 --outstanding 8 --gbn-timeout 8 \
      --message-bytes "$size" --loss "$loss" --duration-us "$duration" --seed "$seed" \
      --csv "$tmp/rc.csv"
    python3 - "$tmp/rc.csv" "$size" "$loss" >>"$out" <<'PY'
import csv, sys
row = next(csv.DictReader(open(sys.argv[1])))
print(f"plain_rc,{sys.argv[2]},{sys.argv[3]},{float(row['goodput_fraction']):.4f},"
      f"{row['retransmitted']},{row['timeouts']}")
PY
    # Bifröst over UC (software selective retransmission) and over RC (NIC retries + failover)
    # with the default CC (Swift, minimum window on loss), then UC with Swift's multiplicative
    # decrease on loss and with no CC: random loss is not congestion, and this shows its price.
    bifrost() {  # label, then flags
      local label=$1
      shift
      "$build/tools/bifrost-transport-loss" -q --size "$size" --loss "$loss" --depth 8 \
        --duration-us "$duration" --seed "$seed" --csv "$tmp/bf.csv" "$@" >/dev/null
      python3 - "$tmp/bf.csv" "$label" >>"$out" <<'PY'
import csv, sys
for row in csv.DictReader(open(sys.argv[1])):
    print(f"bifrost_{row['mode']}{sys.argv[2]},{row['size']},{row['loss']},"
          f"{float(row['goodput']):.4f},{row['retransmitted_wqes']},{row['timeouts']}")
PY
    }
    bifrost "" --mode uc,rc
    bifrost _swift_md --mode uc --cc swift-md
    bifrost _cc_none --mode uc --cc none
  done
done
column -s, -t "$out" >&2
/usr/bin/python3 "$here/plot.py" "$out" "$here/throughput.png"
