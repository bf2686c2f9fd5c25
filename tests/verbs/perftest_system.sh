#!/usr/bin/env bash
# System tests of libbifrost-verbs.so: Debian's unmodified perftest and ibverbs-utils binaries,
# with the library preloaded, between the two network namespaces of scripts/testbed.sh.
#
#   perftest_system.sh <libbifrost-verbs.so> <testbed.sh> tools
#       ibv_devinfo shows bifrost0 (ACTIVE, Ethernet, RoCE v2 GIDs); ib_write_bw, ib_read_bw,
#       ib_send_bw (RC, 64 KiB) and ib_send_lat print their result rows; ibv_rc_pingpong -c
#       exchanges and checks its data.
#   perftest_system.sh <lib> <testbed.sh> loss
#       1% random loss: ib_write_bw completes with every recovery engine (gbn, irn, srnic,
#       fasr), and the testbed really dropped datagrams.
#   perftest_system.sh <lib> <testbed.sh> wire <icrc_check.py>
#       tshark captures ib_write_bw (go-back-N, no GSO) on the server's veth: every datagram
#       decodes as RoCEv2, the independent ICRC checker accepts every frame, and the client's
#       WRITE PSNs run consecutively.
# Needs root (namespaces) and perftest / ibverbs-utils; skipped (77) without them.
set -euo pipefail
lib=$1 testbed=$2 mode=$3
[ "$(id -u)" -eq 0 ] || { echo "needs root for network namespaces: skipped"; exit 77; }
for tool in ib_write_bw ibv_rc_pingpong ibv_devinfo; do
  command -v $tool >/dev/null || { echo "$tool is missing (apt-get install perftest ibverbs-utils): skipped"; exit 77; }
done
# An ASan build of the library needs the ASan runtime loaded first in an uninstrumented program.
preload=$lib
# (grep without -q reads ldd's whole output: an early exit could SIGPIPE ldd, and pipefail would
# then take the library for uninstrumented, as it did once in CI.)
if ldd "$lib" | grep libasan >/dev/null; then
  preload="$(${CXX:-g++} -print-file-name=libasan.so) $lib"
  export ASAN_OPTIONS=detect_leaks=0  # perftest does not free everything before it exits
fi
dir=$(mktemp -d)
chmod 777 "$dir"  # tshark drops privileges to write its capture
[ -n "${KEEP_DIR:-}" ] || trap 'rm -rf "$dir"' EXIT
# $run NAME CMD...: one tool under the library, bounded, its output in $dir/NAME.txt (a script,
# since the testbed runs its commands with sh).
run=$dir/run
cat > "$run" <<RUN
#!/bin/sh
name=\$1; shift
LD_PRELOAD="$preload" exec timeout 40 "\$@" > "$dir/\$name.txt" 2>&1
RUN
chmod +x "$run"
check() {  # check FILE REGEX WHAT
  if grep -Eq "$2" "$dir/$1.txt"; then echo "ok   $3"; else
    echo "FAIL $3"; echo "--- $1:"; tail -n 20 "$dir/$1.txt"; exit 1; fi
}
perf="-d bifrost0 -x 0 -s 65536"

case $mode in
tools)
  # The server side runs each tool in turn; the client starts each after a pause so that the
  # server is listening again.
  tools=("ib_write_bw $perf -n 300" "ib_read_bw $perf -n 300" "ib_send_bw $perf -n 300"
         "ib_send_lat -d bifrost0 -x 0 -n 200" "ibv_rc_pingpong -d bifrost0 -g 0 -c -n 200")
  server="$run devinfo ibv_devinfo -v -d bifrost0"
  client="sleep 0.5"
  for i in "${!tools[@]}"; do
    server+="; $run server$i ${tools[$i]}"
    client+="; sleep 1; $run client$i ${tools[$i]} \$BF_B_IP"
  done
  "$testbed" --b-delay 0.5 --b "$server" --a "$client" || { tail -n 20 "$dir"/*.txt; exit 1; }
  check devinfo "hca_id:[[:space:]]+bifrost0" "ibv_devinfo lists bifrost0"
  check devinfo "state:[[:space:]]+PORT_ACTIVE" "its port is ACTIVE"
  check devinfo "link_layer:[[:space:]]+Ethernet" "with an Ethernet link layer"
  check devinfo "GID\[ *0\]:[[:space:]]+::ffff:10\.77\.0\.2, RoCE v2" "GID 0 is the veth address, RoCE v2"
  for i in 0 1 2; do
    check client$i "^ *65536 +300 +[0-9.]+ +[0-9.]+" "${tools[$i]%% *}: result row (client)"
    check server$i "^ *65536 +300 +[0-9.]+ +[0-9.]+" "${tools[$i]%% *}: result row (server)"
  done
  check client3 "^ *2 +200 +[0-9.]+ +[0-9.]+" "ib_send_lat: result row"
  check client4 "200 iters in" "ibv_rc_pingpong -c: 200 iterations checked (client)"
  check server4 "200 iters in" "ibv_rc_pingpong -c: 200 iterations checked (server)"
  ;;
loss)
  engines=(gbn irn srnic fasr)
  server="true" client="true"
  for e in "${engines[@]}"; do
    server+="; BIFROST_VERBS_RECOVERY=$e $run server-$e ib_write_bw $perf -n 400"
    client+="; sleep 1; BIFROST_VERBS_RECOVERY=$e $run client-$e ib_write_bw $perf -n 400 \$BF_B_IP"
  done
  "$testbed" --loss-permille 10 --counters "$dir/counters.json" --b-delay 0.5 --b "$server" \
    --a "$client" || { tail -n 20 "$dir"/*.txt; exit 1; }
  for e in "${engines[@]}"; do
    check client-$e "^ *65536 +400 +[0-9.]+ +[0-9.]+" "1% loss, $e: ib_write_bw completed ($(awk '/^ *65536 /{print $4}' "$dir/client-$e.txt") MB/s)"
  done
  python3 - "$dir/counters.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
drops = sum(side["drops"] for side in c.values() if isinstance(side, dict) and "drops" in side)
print(("ok   " if drops > 0 else "FAIL ") + f"the testbed dropped {drops} datagrams")
sys.exit(0 if drops > 0 else 1)
PY
  ;;
wire)
  icrc=$4
  command -v tshark >/dev/null || { echo "tshark is missing: skipped"; exit 77; }
  # The server starts once tshark says it captures (slow on a loaded machine), and the client
  # once the server's ready file exists, so the capture holds the whole transfer.
  capture="dev=\$(ip -o link show | awk -F': ' '\$2 ~ /^bfb/ {print \$2}' | cut -d@ -f1);
    tshark -i \$dev -B 64 -f 'udp port 4791' -F pcap -w $dir/cap.pcap > $dir/tshark.txt 2>&1 & t=\$!;
    for i in \$(seq 100); do grep -q 'Capturing on' $dir/tshark.txt && break; sleep 0.2; done;
    (sleep 1; touch $dir/ready) & BIFROST_VERBS_RECOVERY=gbn $run server ib_write_bw $perf -n 50;
    s=\$?; sleep 0.5; kill -INT \$t; wait \$t; exit \$s"
  client="for i in \$(seq 150); do [ -e $dir/ready ] && break; sleep 0.2; done;
    BIFROST_VERBS_RECOVERY=gbn $run client ib_write_bw $perf -n 50 \$BF_B_IP"
  "$testbed" --b-delay 0.5 --b "$capture" --a "$client" \
    || { tail -n 20 "$dir"/*.txt; exit 1; }
  check client "^ *65536 +50 +" "ib_write_bw completed"
  python3 "$icrc" "$dir/cap.pcap" | tail -n 1
  python3 "$icrc" "$dir/cap.pcap" > /dev/null || { echo "FAIL ICRC check"; exit 1; }
  echo "ok   every frame's ICRC verified independently"
  tshark -r "$dir/cap.pcap" -d udp.port==4791,infiniband -T fields -E separator=, \
    -e ip.src -e infiniband.bth.opcode -e infiniband.bth.psn > "$dir/fields.csv" 2>/dev/null
  python3 - "$dir/fields.csv" <<'PY'
import sys
rows = [l.strip().split(",") for l in open(sys.argv[1]) if l.strip()]
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok: sys.exit(1)
check(rows and all(len(r) == 3 and r[1] != "" for r in rows), f"tshark decoded all {len(rows)} datagrams as RoCEv2")
# RC RDMA WRITE FIRST/MIDDLE/LAST/ONLY: 0x06..0x0a; 50 WRITEs of 64 KiB at MTU 4096: 800 packets.
writes = [r for r in rows if r[0] == "10.77.0.1" and 0x06 <= int(r[1], 0) <= 0x0A]
check(len(writes) >= 800, f"{len(writes)} RDMA WRITE packets from the client (50 x 16 at least)")
psns = [int(r[2], 0) for r in writes[-800:]]
check(all((b - a) & 0xFFFFFF == 1 for a, b in zip(psns, psns[1:])), "the last 800 WRITE PSNs run consecutively")
PY
  ;;
*) echo "unknown mode '$mode'" >&2; exit 2 ;;
esac
