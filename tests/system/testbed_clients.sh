#!/usr/bin/env bash
# System test: the N -> 1 testbed (scripts/testbed.sh --clients 2). Two clients, each a RoGUE RC
# write_bw --verify of 200 x 64 KiB against its own server process, through a 200 Mbit/s tbf
# on the bridge's port toward the server. Asserts: every process succeeded, each client's
# messages all completed and were verified at the server with nothing corrupt or missing, the
# server's nftables counted UDP 4791 bytes from each client's own address (so both really went
# through the bridge to the one server namespace), the summary's aggregate is the sum of the
# per-client goodputs and its Jain index is in (0.5, 1] (2 clients: 0.5 means one got all).
# No threshold on speed: the host decides that. Also: --clients with --paths is refused, and
# the two-namespace mode exits with the server's status when only the server fails.
#   testbed_clients.sh <bifrost-perf> <testbed.sh>
set -euo pipefail
perf=$1 testbed=$2
[ "$(id -u)" -eq 0 ] || { echo "needs root for network namespaces: skipped"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

if "$testbed" --clients 2 --paths 1 --a true >"$dir/refused.txt" 2>&1; then
  echo "FAIL --clients with --paths accepted"; exit 1
fi
grep "excludes --aliases and --paths" "$dir/refused.txt" >/dev/null || { cat "$dir/refused.txt"; exit 1; }
echo "ok   refused: --clients with --paths"

# The two-namespace mode reports a failing server (b) even when the client (a) succeeds.
rc=0
"$testbed" --b "exit 3" --a true >"$dir/status.txt" 2>&1 || rc=$?
[ "$rc" -eq 3 ] || { cat "$dir/status.txt"; echo "FAIL b's exit 3 came back as $rc"; exit 1; }
echo "ok   two namespaces: b's failure is the testbed's status"

flags="write_bw --transport rogue-rc -s 65536 --verify --timeout 30"
"$testbed" --clients 2 --rate 200mbit --counters "$dir/summary.json" \
  --b "$perf $flags -B \$BF_B_IP > $dir/server\$BF_INDEX.txt 2>&1" \
  --a "$perf $flags \$BF_B_IP -n 200 --out_json \$BF_JSON > $dir/client\$BF_INDEX.txt 2>&1" \
  >"$dir/testbed.txt" 2>&1 || { cat "$dir"/*.txt; echo "FAIL the testbed run failed"; exit 1; }
cat "$dir/testbed.txt"
python3 - "$dir/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
def ok(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond: sys.exit(1)
per = s["per_client"]
ok(len(per) == 2, "two clients in the summary")
for e in per:
    c = e["client"]
    ok(e.get("iterations") == 200, f"client {c}: 200 messages completed")
    ok(e["verified"] == 200 and e["corrupt"] == 0 and e["missing"] == 0,
       f"client {c}: {e['verified']} verified at its server, nothing corrupt or missing")
    ok(e["goodput_gbps"] > 0, f"client {c}: goodput {e['goodput_gbps']:.3f} Gb/s")
    ok(e.get("wire_gbps", 0) > 0, f"client {c}: the server counted its bytes")
ok(abs(s["aggregate_goodput_gbps"] - sum(e["goodput_gbps"] for e in per)) < 1e-9,
   f"aggregate {s['aggregate_goodput_gbps']:.3f} Gb/s is the sum")
ok(0.5 < s["jain_goodput"] <= 1.0, f"Jain {s['jain_goodput']:.4f} in (0.5, 1]")
ok("bottleneck_drops" in s, f"the bottleneck's tbf reported {s.get('bottleneck_drops')} drops")
PY
