#!/usr/bin/env bash
# The main job: set up, build the Release configuration and show what bifrost does today.
#  1. bifrost-wire-demo: a scripted RoCEv2 exchange of every opcode, written to a pcap with
#     correct checksums and ICRC, read back and decoded (open out/bifrost-demo.pcap in Wireshark).
#  2. bifrost-sim: a leaf-spine network with PFC under WebSearch traffic and incast, simulated
#     packet by packet; results and plots in out/sim-demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release
mkdir -p out
echo "== RoCEv2 on the wire: bifrost-wire-demo"
build/release/tools/bifrost-wire-demo out/bifrost-demo.pcap
echo
echo "== Packet-level simulation: bifrost-sim run scenarios/demo.toml"
build/release/tools/bifrost-sim run scenarios/demo.toml --out out/sim-demo --plot
echo "plots: $(ls out/sim-demo/*.png | tr '\n' ' ')"
