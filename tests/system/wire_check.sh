#!/usr/bin/env bash
# System test: what bifrost puts on a real wire, seen by tshark. A Bifröst UC write_bw (100
# messages of 64 KiB: SENDs, grants, WRITE_WITH_IMM chunks, software ACKs on UD) runs across
# the testbed without loss while tshark captures UDP 4791 on the receiver's veth. Asserts:
#  - tshark decodes every datagram as InfiniBand (RoCEv2) and the independent ICRC check
#    (tests/wire/icrc_check.py) accepts every frame, so the real kernel headers (IP id 0, DF)
#    are what the ICRC was computed over;
#  - client -> server datagrams = the client's UDP datagrams sent;
#  - per data QP, PSNs run consecutively from the first PSN the client offered (UC, no loss:
#    no retransmission by the NIC);
#  - packets ending a WQE (SEND/WRITE ONLY or LAST) on data QPs = the client's data WQEs
#    posted, and UD SENDs to the server's UD QP = the client's software ACKs sent.
# Usage: wire_check.sh <bifrost-perf> <testbed.sh> <icrc_check.py>
set -euo pipefail
perf=$1 testbed=$2 icrc=$3
[ "$(id -u)" -eq 0 ] || { echo "needs root for network namespaces: skipped"; exit 77; }
command -v tshark >/dev/null || { echo "tshark is missing (scripts/setup.sh): skipped"; exit 77; }
dir=$(mktemp -d)
chmod 777 "$dir"  # tshark drops privileges to write the capture
trap 'rm -rf "$dir"' EXIT
flags="write_bw -s 65536 -t 16 --transport bifrost-uc --timeout 20"
capture="dev=\$(ip -o link show | awk -F': ' '\$2 ~ /^bfb/ {print \$2}' | cut -d@ -f1);
  tshark -q -i \$dev -f 'udp port 4791' -F pcap -w $dir/cap.pcap > $dir/tshark.txt 2>&1 & t=\$!;
  sleep 1.5;
  $perf $flags -B \$BF_B_IP > $dir/server.txt 2>&1; s=\$?;
  sleep 0.5; kill -INT \$t; wait \$t; exit \$s"
"$testbed" --b-delay 2 --b "$capture" \
  --a "$perf $flags \$BF_B_IP -n 100 --out_json $dir/client.json > $dir/client.txt 2>&1" \
  || { cat "$dir"/*.txt; exit 1; }
python3 "$icrc" "$dir/cap.pcap" | tail -n 1
python3 "$icrc" "$dir/cap.pcap" >/dev/null || { echo "FAIL ICRC check"; exit 1; }
tshark -r "$dir/cap.pcap" -d udp.port==4791,infiniband -T fields -E separator=, \
  -e ip.src -e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn \
  > "$dir/fields.csv" 2>/dev/null
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
client = json.load(open(f"{d}/client.json"))
rows = [l.strip().split(",") for l in open(f"{d}/fields.csv") if l.strip()]
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok: sys.exit(1)
check(all(len(r) == 4 and r[1] != "" for r in rows), f"tshark decoded all {len(rows)} datagrams as RoCEv2")
mine = client["offers"][0]
peer = client["peer_offers"][0]
out = [r for r in rows if r[0] == mine["ip"]]
c = client["counters"]
check(len(out) == c["udp_tx_datagrams"],
      f"{len(out)} client->server datagrams captured, the client sent {c['udp_tx_datagrams']}")
# The client's QP i sends to the server's QP i; its PSNs start at the client's first PSN.
first = {q["qpn"]: mine["qps"][i]["psn"] for i, q in enumerate(peer["qps"])}
by_qp = {}
for r in out:
    by_qp.setdefault(int(r[2], 0), []).append((int(r[1], 0), int(r[3], 0)))
ends = 0
for qpn, pkts in by_qp.items():
    if qpn == peer["ud_qpn"]:
        continue
    check(qpn in first, f"data QP {qpn:#x} is one the server offered")
    psns = [p for _, p in pkts]
    expect = [(first[qpn] + i) & 0xFFFFFF for i in range(len(psns))]
    check(psns == expect, f"QP {qpn:#x}: {len(psns)} PSNs consecutive from {first[qpn]:#x}")
    # UC opcodes: SEND LAST 0x22, SEND ONLY 0x24, SEND LAST/ONLY with imm 0x23/0x25,
    # RDMA WRITE LAST 0x28, ONLY 0x2a, LAST/ONLY with imm 0x29/0x2b.
    ends += sum(1 for op, _ in pkts if op in (0x22, 0x23, 0x24, 0x25, 0x28, 0x29, 0x2A, 0x2B))
t = c["transport"]
check(ends == t["wqes_posted"], f"{ends} WQE-ending packets on data QPs = {t['wqes_posted']} WQEs posted")
ud = [r for r in out if int(r[2], 0) == peer["ud_qpn"]]
check(all(int(r[1], 0) == 0x64 for r in ud), "everything to the UD QP is UD SEND ONLY (0x64)")
check(len(ud) == t["acks_sent"], f"{len(ud)} UD SENDs to the server = {t['acks_sent']} soft ACKs sent")
PY
