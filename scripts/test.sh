#!/usr/bin/env bash
# Sets up and runs every test: the whole suite once under ASan+UBSan at -O1, a bounded fuzzing
# run of every libFuzzer target, and a smoke run of the main job in Release.
# Environment: BIFROST_PROPERTY_SEEDS (seeds per property test, default 20),
#              BIFROST_FUZZ_SECONDS (per fuzz target, default 15).
set -euo pipefail
cd "$(dirname "$0")/.."
export BIFROST_PROPERTY_SEEDS=${BIFROST_PROPERTY_SEEDS:-20}
fuzz_seconds=${BIFROST_FUZZ_SECONDS:-15}

step() { printf '\n== %s (%s)\n' "$1" "$(date +%T)"; }

step "dependencies"
scripts/setup.sh

step "unit, property, integration and system tests under ASan+UBSan"
scripts/build.sh asan
ctest --test-dir build/asan --output-on-failure -j "$(nproc)" --timeout 600

step "fuzzing (${fuzz_seconds}s per target)"
scripts/build.sh fuzz --target fuzz_all
scripts/fuzz.sh "$fuzz_seconds"

step "main job smoke run (Release)"
# Only what the smoke runs below use: the other tools are built and tested under ASan above.
scripts/build.sh release --target bifrost-wire-demo bifrost-sim bench_event_kernel \
  bench_net_incast bench_rnic_data_path
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build/release/tools/bifrost-wire-demo "$tmp/demo.pcap" >"$tmp/demo.txt"
tail -n 1 "$tmp/demo.txt"
build/release/tools/bifrost-sim run scenarios/demo.toml --out "$tmp/sim" --plot --quiet
ls "$tmp/sim"/*.png
build/release/tools/bifrost-sim run scenarios/demo_pfc_free.toml --out "$tmp/sim-pfc-free" --quiet

step "benchmark smoke run (Release; figures are informative, never pass/fail)"
build/release/bench/bench_event_kernel --benchmark_min_time=0.1 2>&1 | tail -n 4
build/release/bench/bench_net_incast --benchmark_min_time=0.1 2>&1 | tail -n 4
build/release/bench/bench_rnic_data_path --benchmark_min_time=0.1 2>&1 | tail -n 8
bench/fattree.sh 128

step "all tests passed"
