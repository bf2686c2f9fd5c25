#!/usr/bin/env bash
# System test: bifrost-tcp-rpc (the kernel-TCP baseline of Bifröst's Fig. 6) between two
# processes on loopback, with --verify: every request and response is checked byte by byte, and
# both sides must count the same requests (a fixed count, never a duration). Also: a client with
# no server fails with an error that names the address. No root needed.
# Usage: tcp_rpc.sh <bifrost-tcp-rpc>
set -euo pipefail
tcp=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ip="127.$((60 + $$ % 100)).$(($$ / 100 % 250)).4"
port=$((20000 + ($$ + 11) % 20000))
run() {  # request size, response size, depth, count
  port=$((port + 1))
  "$tcp" -B "$ip" -p "$port" --out_json "$dir/server.json" >"$dir/server.txt" 2>&1 &
  local pid=$!
  if ! "$tcp" "$ip" -p "$port" -s "$1" --response_size "$2" --depth "$3" -n "$4" --verify \
    --out_json "$dir/client.json" >"$dir/client.txt" 2>&1; then
    cat "$dir/client.txt" "$dir/server.txt"
    echo "FAIL: the client exited with an error ($*)"
    exit 1
  fi
  if ! wait "$pid"; then
    cat "$dir/server.txt"
    echo "FAIL: the server exited with an error ($*)"
    exit 1
  fi
  python3 - "$dir" "$@" <<'PY'
import json, sys
d, size, response, depth, count = sys.argv[1], *map(int, sys.argv[2:])
c, s = json.load(open(f"{d}/client.json")), json.load(open(f"{d}/server.json"))
bad = [f"{k}: client {c[k]} server {s[k]} expected {v}" for k, v in
       (("requests", count), ("request_size", size), ("response_size", response)) if
       c[k] != v or s[k] != v]
if bad:
    sys.exit("FAIL " + "; ".join(bad))
print(f"ok: {count} requests of {size} B, {response} B answers, depth {depth}")
PY
}
run 1 128 8 3000
run 65536 0 8 500
run 1000000 4096 3 40
port=$((port + 1))
if "$tcp" "$ip" -p "$port" -n 1 --timeout 0.5 >"$dir/none.txt" 2>&1; then
  echo "FAIL: a client without a server succeeded"
  exit 1
fi
grep "$ip" "$dir/none.txt" >/dev/null || { cat "$dir/none.txt"; echo "FAIL: the error names no address"; exit 1; }
echo "ok: no server is an error naming $ip"
