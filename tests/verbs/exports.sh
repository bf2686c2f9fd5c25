#!/usr/bin/env bash
# libbifrost-verbs.so defines exactly libibverbs' public functions (the IBVERBS_1.x version
# nodes of the installed libibverbs.so.1) plus ibv_query_gid_type, the one private symbol
# Debian's ibverbs-utils bind; all unversioned, so they bind the applications' versioned
# references; nothing of bifrost's own leaks out.
# Usage: exports.sh <libbifrost-verbs.so>
set -euo pipefail
lib=$1
# awk reads to the end: an early exit would SIGPIPE ldconfig, and pipefail would fail the test
# whenever ldconfig had not finished writing (it did, once, under a parallel ctest).
real=$(ldconfig -p | awk '/libibverbs\.so\.1 / && !found {found = $NF} END {print found}')
[ -n "$real" ] || { echo "libibverbs.so.1 is not installed: skipped"; exit 77; }
ours=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort)
theirs=$( (objdump -T "$real" | grep -v UND | awk 'NF > 2 && $(NF-1) ~ /^[(]?IBVERBS_1[.]/ && $NF !~ /^IBVERBS/ {print $NF}'; echo ibv_query_gid_type) | sort -u)
if [ "$ours" != "$theirs" ]; then
  echo "FAIL exported symbols differ (< ours only, > libibverbs only):"
  diff <(echo "$ours") <(echo "$theirs") || true
  exit 1
fi
echo "ok   $(echo "$ours" | wc -l) symbols, the same set as $real's public map"
if objdump -T "$lib" | grep -v UND | awk 'NF > 2 && $(NF-1) ~ /IBVERBS/' | grep -q .; then
  echo "FAIL some definitions carry a version"; exit 1
fi
echo "ok   none versioned"
