#!/usr/bin/env bash
# Table 1 of the RoGUE paper (§5.4), RTT accuracy: one QP on an otherwise idle network moving
# 64 KB verbs at line rate; p10/p50/p90 of the RTTs RoGUE computes for RC READ(64 KB) and UC
# WRITE(64 KB), beside a zero-byte signalled RC WRITE oracle. Simulation (tools/bifrost-rogue-rtt:
# two ConnectX-3 Pro soft RNICs on a 10 Gb/s wire, MTU 2048, the wire's delay set so that the
# oracle reads the paper's 2 us); every configuration below is one row group of results.csv:
#   headline            the simulator's NIC as it is (UC sends complete when handed to the port)
#   at_transmit         UC sends complete when their last packet left the NIC (hardware's meaning)
#   idle_wire_0.5us     0.5 us each way (oracle about 1.1 us)
# Our check: each estimate within 1 us + one MTU's serialization (1.64 us) of the oracle's median.
# and, as root, the real runtime's rows (real.sh: bifrost-perf on the namespace testbed).
#   experiments/rogue-rtt-accuracy/run.sh          # a few seconds; about 30 s with real.sh
#   REAL=0 experiments/rogue-rtt-accuracy/run.sh   # the simulator only
set -euo pipefail
source "$(dirname "$0")/../common.sh"
cd "$root"
CMAKE_BUILD_PARALLEL_LEVEL=1 build_tools bifrost-rogue-rtt
tool="$build/tools/bifrost-rogue-rtt"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
out="$here/results.csv"
delay=0.925  # one-way: the oracle then reads 2.0 us, the paper's WRITE(0)

run() {  # name flags...
  local name=$1
  shift
  echo "== $name: $*"
  "$tool" --delay-us "$delay" "$@" --csv "$tmp/$name.csv"
  tail -n +2 "$tmp/$name.csv" | sed "s/^/$name,/" >>"$out"
}
echo "config,row,p10_us,p50_us,p90_us,samples,held_off,goodput_gbps,within_bound,bound_us" >"$out"
run headline
run at_transmit --completes-at-transmit
delay=0.5 run idle_wire_0.5us
# The real runtime's rows (root only): bifrost-perf over the namespace testbed.
if [ "$(id -u)" -eq 0 ] && [ "${REAL:-1}" = 1 ]; then "$here/real.sh"; fi

/usr/bin/python3 "$here/plot.py" "$out" "$here/table1.png"
