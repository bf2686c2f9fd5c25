#!/usr/bin/env bash
# The main job: set up, build the Release configuration and show what bifrost does today.
#  1. bifrost-wire-demo: a scripted RoCEv2 exchange of every opcode, written to a pcap with
#     correct checksums and ICRC, read back and decoded (open out/bifrost-demo.pcap in Wireshark).
#  2. bifrost-sim: a leaf-spine network under WebSearch traffic and incast, simulated packet by
#     packet with soft RNICs at the hosts: first commodity RC (go-back-N) over PFC, then the
#     same traffic PFC-free with IRN's selective repeat; results and plots in out/sim-demo/ and
#     out/sim-demo-pfc-free/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release
mkdir -p out
echo "== RoCEv2 on the wire: bifrost-wire-demo"
build/release/tools/bifrost-wire-demo out/bifrost-demo.pcap
echo
echo "== Packet-level simulation with PFC: bifrost-sim run scenarios/demo.toml"
build/release/tools/bifrost-sim run scenarios/demo.toml --out out/sim-demo --plot
echo "plots: $(ls out/sim-demo/*.png | tr '\n' ' ')"
echo
echo "== The same traffic PFC-free: bifrost-sim run scenarios/demo_pfc_free.toml"
build/release/tools/bifrost-sim run scenarios/demo_pfc_free.toml --out out/sim-demo-pfc-free --plot
echo "plots: $(ls out/sim-demo-pfc-free/*.png | tr '\n' ' ')"
