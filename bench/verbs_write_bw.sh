#!/usr/bin/env bash
# ib_write_bw (Debian's perftest) over libbifrost-verbs.so per recovery engine, at 0% and 1%
# random loss on the testbed, and bifrost-perf's plain RC write_bw in the same testbed run as
# the reference. Reported, never pass/fail. Root only (scripts/testbed.sh).
#   bench/verbs_write_bw.sh [build dir, default build/release] [seconds per row, default 3]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release} seconds=${2:-3}
lib=$PWD/$build/lib/libbifrost-verbs.so perf=$PWD/$build/tools/bifrost-perf
for f in "$lib" "$perf"; do [ -e "$f" ] || { echo "missing $f (scripts/build.sh release)"; exit 1; }; done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
engines=(gbn irn srnic fasr)
ib="ib_write_bw -d bifrost0 -x 0 -s 65536 -D $seconds --report_gbits"
row() {  # row NAME: Gb/s of a perftest or bifrost-perf client output, or why there is none
  local f=$dir/$1.txt
  if grep -Eq '^ *65536 ' "$f"; then awk '/^ *65536 /{print $4; exit}' "$f"
  elif grep -q "bw_avg_Gbps" "$dir/$1.json" 2>/dev/null; then
    python3 -c 'import json,sys; print("%.2f" % json.load(open(sys.argv[1]))["results"][0]["bw_avg_Gbps"])' "$dir/$1.json"
  else echo "failed ($(grep -m1 -Eio 'failed status [0-9]+|retry|timeout|error' "$f" || echo 'no result'))"; fi
}
for loss in 0 10; do
  server="true" client="true"
  for e in "${engines[@]}"; do
    server+="; BIFROST_VERBS_RECOVERY=$e LD_PRELOAD=$lib timeout $((seconds + 20)) $ib > $dir/s-$e-$loss.txt 2>&1"
    client+="; sleep 1; BIFROST_VERBS_RECOVERY=$e LD_PRELOAD=$lib timeout $((seconds + 20)) $ib \$BF_B_IP > $dir/$e-$loss.txt 2>&1"
  done
  server+="; timeout $((seconds + 20)) $perf write_bw -s 65536 -D $seconds --transport rc --report_gbits -B \$BF_B_IP > $dir/s-perf-$loss.txt 2>&1"
  client+="; sleep 1; timeout $((seconds + 20)) $perf write_bw -s 65536 -D $seconds --transport rc --report_gbits --out_json $dir/perf-$loss.json \$BF_B_IP > $dir/perf-$loss.txt 2>&1"
  scripts/testbed.sh --loss-permille $loss --b-delay 0.5 --b "$server" --a "$client" || true
done
printf '\n| | 0%% loss, Gb/s | 1%% loss, Gb/s |\n|---|---|---|\n'
for e in "${engines[@]}"; do printf '| ib_write_bw, %s | %s | %s |\n' "$e" "$(row $e-0)" "$(row $e-10)"; done
printf '| bifrost-perf rc write_bw (go-back-N) | %s | %s |\n' "$(row perf-0)" "$(row perf-10)"
