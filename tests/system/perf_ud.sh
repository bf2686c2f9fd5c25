#!/usr/bin/env bash
# System test: bifrost-perf over UD QPs (-c UD) between two processes on loopback addresses:
# send_bw and send_lat with --verify, every size of -a (up to the MTU). UD does not recover
# losses, so messages may be missing (receives not posted in time) but none may be corrupt, and
# a message larger than the MTU is refused with a clear error. No root needed.
# Usage: perf_ud.sh <bifrost-perf>
set -euo pipefail
perf=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ip="127.$((60 + $$ % 100)).$(($$ / 100 % 250)).2"
port=$((20000 + $$ % 20000))
run() {  # name, then flags
  local name=$1
  shift
  "$perf" "$@" -c UD --verify -B "$ip" -p "$port" >"$dir/$name.server" 2>&1 &
  local pid=$!
  sleep 0.3
  if ! "$perf" "$@" -c UD --verify "$ip" -p "$port" --out_json "$dir/$name.json" \
    >"$dir/$name.client" 2>&1; then
    cat "$dir/$name.client" "$dir/$name.server"
    echo "FAIL $name exited with an error"
    exit 1
  fi
  wait "$pid"
  python3 - "$dir/$name.json" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
name = sys.argv[2]
rows = r["results"]
ok = r["corrupt"] == 0 and all(row["iterations"] > 0 for row in rows)
print(("ok   " if ok else "FAIL ") +
      f"{name}: {len(rows)} sizes up to {rows[-1]['bytes']} B, corrupt {r['corrupt']}, missing {r['missing']}")
sys.exit(0 if ok else 1)
PY
}
run send_bw send_bw -a -n 500
run send_lat send_lat -a -n 200
if "$perf" send_bw -s 8192 -c UD 127.0.0.1 >"$dir/big.txt" 2>&1; then
  echo "FAIL a UD message above the MTU was accepted"
  exit 1
fi
grep -q "does not fit one UD packet" "$dir/big.txt" && echo "ok   -s 8192 over UD refused: $(cat "$dir/big.txt")"
