#!/usr/bin/env bash
# System test: the server is killed (SIGKILL) in the middle of a long write_bw; the client
# must stop with a clear error within its timeout instead of hanging.
# Usage: peer_killed.sh <bifrost-perf> <testbed.sh>
set -euo pipefail
perf=$1 testbed=$2
[ "$(id -u)" -eq 0 ] || { echo "needs root for network namespaces: skipped"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
status=0
"$testbed" \
  --b "$perf write_bw -s 65536 -B \$BF_B_IP > $dir/server.txt 2>&1 & p=\$!; sleep 1.5; kill -9 \$p; echo killed" \
  --a "timeout 60 $perf write_bw -s 65536 \$BF_B_IP -D 30 --timeout 5 > $dir/client.txt 2>&1" \
  || status=$?
cat "$dir/client.txt"
if [ "$status" -eq 124 ]; then echo "FAIL the client hung after its server died"; exit 1; fi
if [ "$status" -eq 0 ]; then echo "FAIL the client reported success although its server died"; exit 1; fi
grep -q "bifrost-perf: error: .*went away mid-transfer\|bifrost-perf: error: .*failed" "$dir/client.txt" \
  || { echo "FAIL no clear error message"; exit 1; }
echo "ok   client stopped with a clear error (exit $status)"
