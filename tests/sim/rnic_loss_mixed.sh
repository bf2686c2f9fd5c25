#!/usr/bin/env bash
# bifrost-rnic-loss --opcode mixed --clients 3 (the FaSR paper's server issuing READs and WRITEs
# to three clients): over FaSR at 1% loss every message arrives byte-exact, READ responses carry
# as much data back as the WRITEs carry out, and the clients' NIC caches three times the
# server's contexts.
# Usage: rnic_loss_mixed.sh <bifrost-rnic-loss>
set -euo pipefail
tool=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
common=(-q --engine fasr --loss 0.01 --qps 16 --outstanding 2 --message-bytes 8192
        --context-cache-bytes 4000 --context-fetches 8 --duration-us 3000 --warmup-us 500
        --verify-every 1)
"$tool" "${common[@]}" --opcode mixed --clients 3 --json "$dir/mixed.json" >/dev/null
"$tool" "${common[@]}" --opcode mixed --clients 1 --json "$dir/one.json" >/dev/null
"$tool" "${common[@]}" --opcode write --clients 3 --json "$dir/write.json" >/dev/null
"$tool" -q --engine fasr --loss 0.001 --qps 256 --outstanding 2 --start-spread-us 3072 \
  --warmup-us 5072 --duration-us 15072 --context-fetches 8 --ack-every 1 --opcode mixed \
  --context-cache-bytes 1400000 --json "$dir/staggered.json" >/dev/null
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
mixed, one, write, staggered = (json.load(open(f"{d}/{n}.json"))["points"][0]
                                 for n in ("mixed", "one", "write", "staggered"))
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok: sys.exit(1)
check(mixed["messages"] > 100 and mixed["verified"] > 100, f"{mixed['messages']} messages completed")
check(mixed["verify_failures"] == 0 and mixed["qp_error"] == "", "every message byte-exact, no QP error")
check(mixed["retransmitted"] > 0, "the loss was repaired")
# READ responses go b -> a with the ACKs: about as many packets as the WRITE data a -> b.
ratio = mixed["ack_packets_sent"] / mixed["data_packets_sent"]
check(0.7 < ratio < 1.6, f"packets back / packets out {ratio:.2f}: data both ways")
check(write["ack_packets_sent"] < 0.5 * write["data_packets_sent"], "WRITE alone sends data one way")
check(mixed["cache_contexts"] >= 3 * one["cache_contexts"] - 2,
      f"clients' cache {mixed['cache_contexts']} contexts vs one NIC's {one['cache_contexts']}")
check(one["cache_contexts"] < 16, "one NIC's cache is smaller than the 16 QPs")
check(mixed["requester_cache_misses"] > 0, "the server's cache is exercised too")
check(staggered["qp_error"] == "" and staggered["verify_failures"] == 0,
      f"256 staggered QPs: no QP error ({staggered['qp_error'] or 'none'}), byte-exact")
check(0.2 < mixed["goodput_fraction"] < 1,
      f"goodput {mixed['goodput_fraction']:.3f} of both directions' line rate")
PY
