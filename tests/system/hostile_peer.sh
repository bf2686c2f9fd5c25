#!/usr/bin/env bash
# System test: a hostile process sprays bad packets at a server while a good client writes
# into it (hostile_peer.cc has the details). Runs over loopback addresses 127.N.M.{1,2,3}:
# no root needed.
# Usage: hostile_peer.sh <hostile_peer binary>
set -euo pipefail
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
prefix="127.$((50 + $$ % 100)).$(($$ / 100 % 250))"
"$bin" target "$dir" "$prefix" >"$dir/target.json" &
pid=$!
"$bin" spray "$dir" "$prefix"
wait "$pid"
cat "$dir/target.json"
python3 - "$dir/target.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
rounds = 300
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok: sys.exit(1)
check(t["failed"] == 0 and t["completed"] == t["posted"] >= 500,
      f"good transfer: {t['completed']}/{t['posted']} WRITEs completed, none failed")
check(t["region_a_intact"], "region A holds exactly what the good client wrote last")
check(t["region_b_untouched"], "region B untouched (A's rkey against B's addresses refused)")
check(t["guards_untouched"], "guard canaries around both regions untouched")
# Per round: a bad ICRC, a truncated datagram and random garbage (which may happen to parse
# and then fail the ICRC): all three dropped by the port.
# A datagram the kernel dropped for lack of receive buffer (the good client floods the same
# socket; under ASan the loop falls behind) never reaches the port. Without kernel drops every
# bad datagram must be counted; with some, at least half of each kind (the sprayer sends one of
# each per millisecond, so losing most of one kind would mean the port miscounts).
kdrops = t["rx_kernel_drops"]
need = rounds if kdrops == 0 else rounds // 2
print(f"kernel receive-buffer drops: {kdrops}; each kind must be counted at least {need} times")
port_drops = t["rx_bad_icrc"] + t["rx_malformed"] + t["rx_truncated"]
check(t["rx_bad_icrc"] >= need, f"bad ICRCs counted and dropped: {t['rx_bad_icrc']}")
check(port_drops >= 3 * need,
      f"bad ICRC, truncated and garbage datagrams dropped by the port: {port_drops} >= {3 * need}")
check(t["rx_no_qp"] >= need, f"unknown QPNs counted: {t['rx_no_qp']}")
check(t["rx_dropped_sequence"] >= need,
      f"PSNs outside the window dropped: {t['rx_dropped_sequence']}")
check(t["access_naks_sent"] >= 2, f"bad rkey and cross-region WRITEs NAKed: {t['access_naks_sent']}")
PY
