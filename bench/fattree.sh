#!/usr/bin/env bash
# Macro benchmark: the fat-tree permutation runs htsim users know (bench/scenarios/), simulated
# by a Release build of bifrost-sim. Prints wall time, simulated packets, packet-hops per wall
# second and peak RSS, beside the figures htsim's RoCE model is reported to need for the same
# runs (issue 3 of this project; not measured here: htsim is not available on this machine).
# Usage: bench/fattree.sh [128|1024|all]   (default all)
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}
scripts/build.sh release --target bifrost-sim >/dev/null

run() {
  local name=$1 reference_s=$2 reference_mb=$3
  local out log
  out=$(mktemp -d)
  log=$(mktemp)
  /usr/bin/time -f "%e %M" -o "$log.time" build/release/tools/bifrost-sim run \
    "bench/scenarios/$name.toml" --out "$out" --quiet >"$log"
  read -r wall rss_kb <"$log.time"
  echo "== $name"
  grep -E "^simulated|^flows" "$log"
  awk -v w="$wall" -v r="$rss_kb" -v rs="$reference_s" -v rm="$reference_mb" 'BEGIN {
    printf "wall %.2f s, peak RSS %.0f MB; htsim (reported): %s s, %s MB; speed-up %.1fx\n",
           w, r / 1024, rs, rm, rs / w }'
  rm -rf "$out" "$log" "$log.time"
}

case "$which" in
  128) run fattree_128 0.57 "n/a" ;;
  1024) run fattree_1024 87 146 ;;
  all) run fattree_128 0.57 "n/a"; run fattree_1024 87 146 ;;
  *) echo "usage: bench/fattree.sh [128|1024|all]" >&2; exit 2 ;;
esac
