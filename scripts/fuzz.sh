#!/usr/bin/env bash
# Runs every libFuzzer target built by the "fuzz" preset for a bounded time, starting from a
# copy of its saved corpus (fuzz/corpus/<name>/ for target fuzz_<name>), so the repository's
# corpus stays small. Targets run side by side, one per core (BIFROST_FUZZ_JOBS, default
# nproc), each for the full time. A crash leaves its input in build/fuzz/artifacts/ and fails
# the script.
# Usage: scripts/fuzz.sh [seconds per target, default 30]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
jobs=${BIFROST_FUZZ_JOBS:-$(nproc)}
shopt -s nullglob
targets=()
for target in build/fuzz/fuzz/fuzz_*; do [ -x "$target" ] && targets+=("$target"); done
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz: no targets in build/fuzz/fuzz; run scripts/build.sh fuzz first" >&2
  exit 1
fi
mkdir -p build/fuzz/artifacts
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# Fuzzes one target from a scratch copy of its corpus; its exit status lands in $logs/<name>.rc.
fuzz_one() {
  local target=$1 name=${1##*/fuzz_} work
  work=$(mktemp -d)
  cp -r "fuzz/corpus/$name/." "$work/" 2>/dev/null || true
  local status=0
  "$target" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix=build/fuzz/artifacts/"$name"- "$work" >"$logs/$name.log" 2>&1 || status=$?
  echo "$status" >"$logs/$name.rc"
  rm -rf "$work"
}

# Reports one finished target in the order they were started; returns its exit status.
report() {
  local name=${1##*/fuzz_} status
  status=$(cat "$logs/$name.rc")
  echo "fuzz: $name for ${seconds}s"
  grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|ERROR|SUMMARY" \
    "$logs/$name.log" || true
  if [ "$status" -ne 0 ]; then
    tail -n 40 "$logs/$name.log"
    echo "fuzz: $name failed (exit $status); see build/fuzz/artifacts/" >&2
  fi
  return "$status"
}

failed=0
for ((i = 0; i < ${#targets[@]}; i += jobs)); do
  batch=("${targets[@]:i:jobs}")
  for target in "${batch[@]}"; do fuzz_one "$target" & done
  wait
  for target in "${batch[@]}"; do report "$target" || failed=1; done
done
exit "$failed"
