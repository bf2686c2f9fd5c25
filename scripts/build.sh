#!/usr/bin/env bash
# Configures and builds one CMake preset (release, debug, asan, fuzz) into build/<preset>.
# Usage: scripts/build.sh <preset> [extra cmake --build args]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:?usage: scripts/build.sh release|debug|asan|fuzz}
shift
cmake --preset "$preset" >/dev/null
cmake --build "build/$preset" -j "$(nproc)" "$@"
