#!/usr/bin/env bash
# The main job: set up, build the Release configuration and show what bifrost does.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release
mkdir -p out
build/release/tools/bifrost-wire-demo out/bifrost-demo.pcap
