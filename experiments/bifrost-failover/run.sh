#!/usr/bin/env bash
# §3.4.2 of the Bifröst paper: why backup QPs. Re-establishing a QP after its path fails takes
# "e.g., 5ms"; switching to a pre-connected backup "~60 us". One Bifröst connection (the paper
# config) keeps 8 RPC-sized messages outstanding; at 1 ms the path of both primary QPs dies.
# Rows: RC and UC, with the paper's 2 backup QPs and with none (only a reconnect can bring a
# QP back). Writes results.csv and stall.png here. About 10 seconds.
#
#   experiments/bifrost-failover/run.sh
set -euo pipefail
source "$(dirname "$0")/../common.sh"
tool_and_tmp bifrost-failover
out="$here/results.csv"
# The paper's headline setup: cluster A's 25 Gb/s NICs, MTU 1024, 2 RC retries (§3.4.2,
# rc_retry_cnt), the soft RNIC's QpTransitionCosts (5 ms recover, 60 us activate).
"$tool" --mode rc,uc --backups 2,0 --rate-gbps 25 --mtu 1024 --rtt-us 6 --size 32768 --depth 8 \
  --fail-at-us 1000 --duration-us 20000 --csv "$tmp/headline.csv" >&2
{
  echo "setup,$(head -1 "$tmp/headline.csv")"
  tail -n +2 "$tmp/headline.csv" | sed 's/^/paper,/'
} >"$out"
# Sensitivity: a short RC QP timeout (16 us instead of 1.05 ms) and a 100 us UC RTO floor, so
# the detection no longer dwarfs the switch itself.
"$tool" --mode rc,uc --backups 2,0 --rate-gbps 25 --mtu 1024 --rtt-us 6 --size 32768 --depth 8 \
  --fail-at-us 1000 --duration-us 20000 --rc-timeout 2 --min-rto-us 100 \
  --csv "$tmp/fast.csv" >&2
tail -n +2 "$tmp/fast.csv" | sed 's/^/fast_detection,/' >>"$out"
column -s, -t "$out" >&2
/usr/bin/python3 "$here/plot.py" "$out" "$here/stall.png"
