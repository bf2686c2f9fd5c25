#!/usr/bin/env bash
# Runs every libFuzzer target built by the "fuzz" preset for a bounded time, starting from a
# copy of its saved corpus (fuzz/corpus/<name>/ for target fuzz_<name>), so the repository's
# corpus stays small. A crash leaves its input in build/fuzz/artifacts/ and fails the script.
# Usage: scripts/fuzz.sh [seconds per target, default 30]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shopt -s nullglob
targets=(build/fuzz/fuzz/fuzz_*)
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz: no targets in build/fuzz/fuzz; run scripts/build.sh fuzz first" >&2
  exit 1
fi
mkdir -p build/fuzz/artifacts
for target in "${targets[@]}"; do
  [ -x "$target" ] || continue
  name=${target##*/fuzz_}
  work=$(mktemp -d)
  cp -r "fuzz/corpus/$name/." "$work/" 2>/dev/null || true
  echo "fuzz: $name for ${seconds}s"
  set +e
  "$target" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix=build/fuzz/artifacts/"$name"- "$work" >"$work.log" 2>&1
  status=$?
  set -e
  grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|ERROR|SUMMARY" "$work.log" || true
  if [ "$status" -ne 0 ]; then tail -n 40 "$work.log"; fi
  rm -rf "$work" "$work.log"
  if [ "$status" -ne 0 ]; then
    echo "fuzz: $name failed (exit $status); see build/fuzz/artifacts/" >&2
    exit "$status"
  fi
done
