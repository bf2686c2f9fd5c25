#!/usr/bin/env bash
# System test: bifrost-perf write_bw --verify between two network namespaces with 1% random
# loss of UDP 4791 (nftables). 64 MiB (1024 x 64 KiB) over plain RC (go-back-N) with 8
# messages in flight: at 128 in flight go-back-N collapses under 1% loss (retry_exceeded).
# Asserts: nothing corrupt or missing, every message verified at the receiver, the loss was
# real (the drop counter is about 1% of the datagrams) and the sender retransmitted.
# Usage: lossy_write_bw.sh <bifrost-perf> <testbed.sh>
set -euo pipefail
perf=$1 testbed=$2
[ "$(id -u)" -eq 0 ] || { echo "needs root for network namespaces: skipped"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
flags="write_bw -s 65536 -t 8 --verify --timeout 20"
"$testbed" --loss-permille 10 --counters "$dir/nft.json" \
  --b "$perf $flags -B \$BF_B_IP --out_json $dir/server.json > $dir/server.txt 2>&1" \
  --a "$perf $flags \$BF_B_IP -n 1024 --out_json $dir/client.json > $dir/client.txt 2>&1" \
  || { cat "$dir"/*.txt; exit 1; }
cat "$dir/client.txt"
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
client = json.load(open(f"{d}/client.json"))
server = json.load(open(f"{d}/server.json"))
nft = json.load(open(f"{d}/nft.json"))
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok: sys.exit(1)
check(client["results"][0]["iterations"] == 1024, "1024 messages completed at the sender")
check(server["verified"] == 1024, f"receiver verified {server['verified']} of 1024 messages")
check(client["corrupt"] == 0 and server["corrupt"] == 0, "no corrupt message")
check(client["missing"] == 0, "no missing message")
seen, drops = nft["b"]["datagrams"], nft["b"]["drops"]
frac = drops / seen
check(0.004 <= frac <= 0.02, f"loss into the receiver {drops}/{seen} = {frac:.4f}, about 1%")
check(client["counters"]["retransmissions"] > 0,
      f"sender retransmitted {client['counters']['retransmissions']} packets")
PY
