#!/usr/bin/env bash
# Compiler/linker launcher that appends "<user+sys CPU seconds><TAB><output file>" to
# $BIFROST_CPU_TIME_LOG for every command it runs. CPU time, unlike .ninja_log's wall time, stays
# comparable when other builds share the machine. Usage (a cold build, no ccache):
#   launcher=$PWD/cmake/cpu_time_launcher.sh
#   cmake --preset asan -B build/asan-timed -DCMAKE_CXX_COMPILER_LAUNCHER=$launcher \
#         -DCMAKE_CXX_LINKER_LAUNCHER=$launcher
#   BIFROST_CPU_TIME_LOG=/tmp/cpu.log cmake --build build/asan-timed
#   sort -rn /tmp/cpu.log | head    # the most expensive objects and links
set -u
log=${BIFROST_CPU_TIME_LOG:-/tmp/bifrost-cpu-time.log}
out=unknown
previous=
for arg in "$@"; do
  [ "$previous" = "-o" ] && out=$arg
  previous=$arg
done
times=$(mktemp)
/usr/bin/time -f "%U %S" -o "$times" "$@"
status=$?
read -r user sys < <(tail -n 1 "$times")
rm -f "$times"
awk -v u="$user" -v s="$sys" -v o="$out" 'BEGIN { printf "%.2f\t%s\n", u + s, o }' >>"$log"
exit "$status"
