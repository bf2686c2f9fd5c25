#!/usr/bin/env bash
# System test: bifrost-perf rpc_bw (transport::RpcChannel over Bifröst UC) between two processes
# on loopback addresses, 2 connections x 1500 requests of 128 B at depth 8, --verify, once with
# immediate ACKs (--ack_every 1) and once with coalesced ACKs and A.1.2's hint
# (--hint_when_idle 0). Asserts that the counts add up on both sides (every request answered
# once and intact, the transports sent and delivered one message per request each way) and
# what each ACK policy implies for the ACK count; never on speed. No root needed.
# Usage: perf_rpc.sh <bifrost-perf>
set -euo pipefail
perf=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ip="127.$((60 + $$ % 100)).$(($$ / 100 % 250)).3"
port=$((20000 + ($$ + 7) % 20000))
run() {  # name, then flags
  local name=$1
  shift
  "$perf" rpc_bw --transport bifrost-uc "$@" -B "$ip" -p "$port" --out_json "$dir/$name.server.json" \
    >"$dir/$name.server" 2>&1 &
  local pid=$!
  sleep 0.3
  if ! "$perf" rpc_bw --transport bifrost-uc "$@" "$ip" -p "$port" --out_json "$dir/$name.json" \
    >"$dir/$name.client" 2>&1; then
    cat "$dir/$name.client" "$dir/$name.server"
    echo "FAIL $name: the client exited with an error"
    exit 1
  fi
  if ! wait "$pid"; then
    cat "$dir/$name.server"
    echo "FAIL $name: the server exited with an error"
    exit 1
  fi
}
flags=(-s 128 --depth 8 -q 2 -n 1500 --verify)
run immediate "${flags[@]}" --ack_every 1
run coalesced "${flags[@]}" --hint_when_idle 0
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
failures = []
def expect(cond, what):
    if not cond:
        failures.append(what)
acks = {}
for name in ("immediate", "coalesced"):
    c = json.load(open(f"{d}/{name}.json"))
    s = json.load(open(f"{d}/{name}.server.json"))
    requests = 2 * 1500
    row = c["results"][0]
    ct, st = c["counters"]["transport"], c["peer_counters"]["transport"]
    expect(row["iterations"] == requests, f"{name}: {row['iterations']} responses, not {requests}")
    expect(c["rpc"]["requests"] == requests, f"{name}: rpc.requests {c['rpc']['requests']}")
    # Verified here (responses) and at the server (requests), nothing corrupt or repeated.
    expect(c["verified"] == 2 * requests, f"{name}: verified {c['verified']}, not {2 * requests}")
    expect(c["corrupt"] == 0 and c["duplicates"] == 0,
           f"{name}: corrupt {c['corrupt']}, duplicates {c['duplicates']}")
    # One message each way per request, at both ends. A message the sender gave up on
    # (messages_failed) after the peer had it still counts once: on a loaded 2-core host a
    # process may sleep past the transport's timers (see the README of
    # experiments/bifrost-ack-coalescing).
    for side, t in (("client", ct), ("server", st)):
        expect(t["messages_sent"] + t["messages_failed"] == requests and
               t["messages_delivered"] == requests,
               f"{name}: {side} sent {t['messages_sent']} + failed {t['messages_failed']}, "
               f"delivered {t['messages_delivered']}")
        expect(t["malformed"] == 0, f"{name}: {side} malformed {t['malformed']}")
    # Every ACK one side sent was received by the other (loopback loses nothing we count on,
    # so allow none missing).
    expect(ct["acks_received"] == st["acks_sent"] and st["acks_received"] == ct["acks_sent"],
           f"{name}: ACKs client {ct['acks_sent']}->{st['acks_received']}, server {st['acks_sent']}->{ct['acks_received']}")
    total = ct["acks_sent"] + st["acks_sent"]
    expect(abs(c["rpc"]["acks_per_request"] - total / requests) < 1e-9, f"{name}: acks_per_request")
    expect(s["rpc"]["requests"] == requests, f"{name}: the server reports {s['rpc']['requests']}")
    expect(c["rpc"]["cpu_seconds_peer"] > 0 and c["rpc"]["cpu_seconds_here"] > 0, f"{name}: CPU")
    acks[name] = (ct, st)
    print(f"{name}: {requests} requests answered and verified, {total / requests:.3f} ACKs per "
          f"request, {row['msg_rate_Mpps'] * 1e6:.0f} requests/s (not asserted)")
# Immediate: every WQE received (retransmissions too) is acknowledged on its own.
for side, t in zip(("client", "server"), acks["immediate"]):
    expect(t["acks_sent"] == t["wqes_received"],
           f"immediate: {side} sent {t['acks_sent']} ACKs for {t['wqes_received']} WQEs")
# Coalesced with A.1.2's hint: an ACK covers 32 WQEs, or what arrived within 120 us, or the
# WQEs before an out-of-order one: fewer ACKs than WQEs.
sent = sum(t["acks_sent"] for t in acks["coalesced"])
got = sum(t["wqes_received"] for t in acks["coalesced"])
expect(sent < got, f"coalesced: {sent} ACKs for {got} WQEs")
for f in failures:
    print("FAIL " + f)
sys.exit(1 if failures else 0)
PY
