#!/usr/bin/env bash
# System test: bifrost-perf over Virtuoso (--transport virtuoso --paths 2), real processes in
# the testbed with two path veths of their own (scripts/testbed.sh --paths 2 --path-rate).
# Asserts:
#  - write_bw, read_bw and send_bw (64 KiB: large MP SENDs, WRITEs across the paths and an
#    empty SEND) with --verify: every message completed, verified once, nothing corrupt or
#    missing, one probe per path on each side, no path QP failed;
#  - the offers name alias i <-> peer alias i (10.77.i.1 <-> 10.77.i.2) for path i;
#  - both paths carried data: each path veth sent at least 20% of the message bytes (kernel counters),
#    and, with tshark, every datagram captured on path veth i is between alias pair i;
#  - same-path recovery: with path 2's packets toward the client dropped for 1.5 s, its QP fails
#    (RETRY_EXC) and is recovered on the same path: every message still verified, and every
#    datagram from alias 1.i left from the one UDP source port the report gives for path i;
#  - bad combinations are refused with a clear error, and --paths beyond the host's addresses
#    names what is missing.
# Usage: perf_virtuoso.sh <bifrost-perf> <testbed.sh>
set -euo pipefail
perf=$1 testbed=$2
dir=$(mktemp -d)
chmod 777 "$dir"  # tshark drops privileges to write the capture
trap 'rm -rf "$dir"' EXIT

# refused <what the error says> <flags...>
refused() {
  local expect=$1
  shift
  if "$perf" "$@" 127.0.0.1 --timeout 1 >"$dir/refused.txt" 2>&1; then
    echo "FAIL accepted: $*"
    exit 1
  fi
  grep -e "$expect" "$dir/refused.txt" >/dev/null || { cat "$dir/refused.txt"; echo "FAIL $*"; exit 1; }
  echo "ok   refused: $* ($expect)"
}
refused "needs --transport virtuoso" write_bw --paths 2
refused "cannot run over --transport virtuoso" write_lat --transport virtuoso
refused "every path is an RC QP" write_bw --transport virtuoso -c UC
refused "needs -s 8 or more" write_bw --transport virtuoso -s 4 --verify
refused "--paths 0 is invalid" write_bw --transport virtuoso --paths 0

# Loopback has no aliases: both sides name what is missing.
ip="127.$((60 + $$ % 100)).$(($$ / 100 % 250)).4" port=$((20000 + $$ % 20000))
"$perf" write_bw --transport virtuoso --paths 3 -B "$ip" -p "$port" --timeout 5 >"$dir/alias.server" 2>&1 &
server=$!
sleep 0.3
if "$perf" write_bw --transport virtuoso --paths 3 "$ip" -p "$port" --timeout 5 >"$dir/alias.client" 2>&1; then
  echo "FAIL --paths 3 ran without aliases"
  exit 1
fi
wait "$server" || true
grep "3 paths need 3 addresses besides" "$dir/alias.client" >/dev/null ||
  { cat "$dir/alias.client"; echo "FAIL no clear error for missing aliases"; exit 1; }
echo "ok   refused: --paths 3 without aliases ($(grep -o '3 paths need.*' "$dir/alias.client" | head -c 60)...)"

[ "$(id -u)" -eq 0 ] || { echo "needs root for network namespaces: skipped"; exit 77; }
capture=0
command -v tshark >/dev/null && capture=1
[ "$capture" -eq 1 ] || echo "tshark is missing: checking the path veths' counters only"

# run <name> <messages> <capture 0|1> <flags...>: server in b (capturing its path veths with
# tshark if asked and installed), client in a.
run() {
  local name=$1 n=$2 capture=$(($3 && capture))
  shift 3
  local flags="$* --transport virtuoso --paths 2 --verify -s 65536 -t 16 --timeout 20"
  local serve="$perf $flags -B \$BF_B_IP --out_json $dir/$name.server.json > $dir/$name.server 2>&1"
  local delay=0.3
  if [ "$capture" -eq 1 ]; then
    delay=2
    serve="devs=\$(ip -o link show | awk -F': ' '\$2 ~ /^bfb[0-9]+p[0-9]/ {print \$2}' | cut -d@ -f1);
      tshark -q \$(for d in \$devs; do printf ' -i %s' \$d; done) -f 'udp port 4791' \
        -w $dir/$name.pcapng > $dir/$name.tshark 2>&1 & t=\$!;
      sleep 1.5; $serve; s=\$?; sleep 0.5; kill -INT \$t; wait \$t; exit \$s"
  fi
  # blackhole=1: path 2's packets from 10.77.2.2 (ACKs, notices) are dropped at the client
  # from 0.5 to 2 s after it starts, longer than the 0.55 s an RC QP retries at the default
  # timeout (14: 67 ms, 7 retries); 200 Mbit/s per path keeps the run longer than that.
  local client="$perf $flags \$BF_B_IP -n $n --out_json $dir/$name.client.json > $dir/$name.client 2>&1"
  if [ "${blackhole:-0}" -eq 1 ]; then
    client="(sleep 0.5; nft add table inet bh; \
      nft add chain inet bh in '{ type filter hook input priority -10; }'; \
      nft add rule inet bh in ip saddr 10.77.2.2 udp dport 4791 drop; \
      sleep 1.5; nft delete table inet bh) > $dir/$name.blackhole 2>&1 & $client"
  fi
  "$testbed" --paths 2 --path-rate 200mbit --counters "$dir/$name.counters.json" --b-delay "$delay" \
    --b "$serve" --a "$client" \
    >"$dir/$name.testbed" || { cat "$dir/$name".*; exit 1; }
  if [ "$capture" -eq 1 ]; then
    tshark -r "$dir/$name.pcapng" -T fields -E separator=, -e frame.interface_name -e ip.src \
      -e ip.dst -e udp.srcport >"$dir/$name.fields.csv" 2>/dev/null
  fi
  python3 - "$dir" "$name" "$n" "$capture" "${blackhole:-0}" <<'PY'
import json, sys
d, name, n, capture = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
blackhole = sys.argv[5] == "1"
client = json.load(open(f"{d}/{name}.client.json"))
server = json.load(open(f"{d}/{name}.server.json"))
counters = json.load(open(f"{d}/{name}.counters.json"))
def ok(cond, what):
    print(("ok   " if cond else "FAIL ") + f"{name}: {what}")
    if not cond: sys.exit(1)
row = client["results"][0]
ok(row["iterations"] == n, f"{row['iterations']} of {n} MP WRs completed")
checker = client if client["test"] == "read_bw" else server
ok(checker["verified"] == n, f"{checker['verified']} of {n} verified at the {checker['role']}")
ok(client["corrupt"] == 0 and server["corrupt"] == 0 and client["missing"] == 0,
   "nothing corrupt or missing")
for side in (client, server):
    v = side["counters"]["virtuoso"]
    # With the blackhole, path 2's QP fails on one side or both (the client's WRITEs lose
    # their ACKs, the server's notices are dropped) and a recovery resets both ends together.
    if not blackhole:
        failed = v["retry_exceeded"] == 0
    else:
        either = client["counters"]["virtuoso"]["retry_exceeded"] + \
            server["counters"]["virtuoso"]["retry_exceeded"]
        failed = either > 0 and v["recoveries"] > 0
    ok(v["probes"] == 2 and failed,
       f"{side['role']}: {v['probes']} probes, {v['retry_exceeded']} RETRY_EXC, "
       f"{v['recoveries']} recoveries, {v['wrs_posted']} WRs for {v['mp_wrs']} MP WRs")
mine = client["offers"][0]["qp_addresses"]
theirs = client["peer_offers"][0]["qp_addresses"]
pairs = [(mine[i]["ip"], theirs[i]["ip"]) for i in range(2)]
ok(pairs == [("10.77.1.1", "10.77.1.2"), ("10.77.2.1", "10.77.2.2")],
   f"path i is alias pair i: {pairs}")
# The data flows a -> b except for read_bw.
sent = counters["b" if client["test"] == "read_bw" else "a"]["path_tx_bytes"]
total = sum(sent)
# Against the messages' bytes, not the veths' total: go-back-N resends after a tbf drop (which
# the host's load decides) inflate one path's count, and once made the other path's share of
# the total 19.4% although it carried half the messages.
ok(all(b >= 0.2 * n * 65536 for b in sent),
   f"bytes sent per path veth {sent}: each >= 20% of the {n * 65536} message bytes")
ok(total >= n * 65536, f"{total} bytes on the path veths for {n * 65536} of messages")
if capture:
    rows = [l.strip().split(",") for l in open(f"{d}/{name}.fields.csv") if l.strip()]
    by_dev = {}
    ports = {}  # alias -> the UDP source ports it sent from
    for dev, src, dst, sport in rows:
        if src and dst:  # not IPv4 (an IPv6 router solicitation of a new veth)
            by_dev.setdefault(dev, set()).add((src, dst))
            ports.setdefault(src, set()).add(int(sport))
    ok(len(by_dev) == 2, f"tshark saw datagrams on {sorted(by_dev)}")
    for dev, seen in sorted(by_dev.items()):
        i = int(dev.rsplit("p", 1)[1])
        pair = {(f"10.77.{i}.1", f"10.77.{i}.2"), (f"10.77.{i}.2", f"10.77.{i}.1")}
        ok(seen <= pair and len(seen) == 2, f"{dev} carried alias pair {i} only, both ways: {sorted(seen)}")
    # A recovered QP keeps its path: the same alias pair and UDP source port as before.
    for i, path in enumerate(client["counters"]["virtuoso"]["connections"][0]["paths"], 1):
        sent = ports.get(f"10.77.{i}.1", set())
        ok(sent == {path["source_port"]}, f"alias 10.77.{i}.1 sent from UDP ports {sorted(sent)}, "
           f"the report's path {i}: {path['source_port']}")
PY
}

run write 200 1 write_bw
run read 200 0 read_bw
run send 200 0 send_bw
blackhole=1 run recover 1500 1 write_bw
