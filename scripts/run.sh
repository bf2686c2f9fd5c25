#!/usr/bin/env bash
# The main job: set up, build the Release configuration and show what bifrost does today.
#  1. bifrost-wire-demo: a scripted RoCEv2 exchange of every opcode, written to a pcap with
#     correct checksums and ICRC, read back and decoded (open out/bifrost-demo.pcap in Wireshark).
#  2. bifrost-sim: a leaf-spine network under WebSearch traffic and incast, simulated packet by
#     packet with soft RNICs at the hosts: first commodity RC (go-back-N) over PFC, then the
#     same traffic PFC-free with IRN's selective repeat; results and plots in out/sim-demo/ and
#     out/sim-demo-pfc-free/.
#  3. bifrost-perf over real UDP between two network namespaces with 1% random loss (root only):
#     plain RC (the NIC's go-back-N) against Bifröst UC (software selective retransmission) with
#     and without congestion control, 64 KiB messages, 128 in flight, 3 s each.
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
echo
echo "== Real RoCEv2 over UDP, two network namespaces, 1% random loss: plain RC vs Bifröst UC"
if [ "$(id -u)" -ne 0 ]; then
  echo "skipped: the testbed needs root (network namespaces, nftables); run as root to see it"
else
  perf=build/release/tools/bifrost-perf
  # Plain RC (go-back-N), Bifröst UC with its default congestion control (Swift), and Bifröst
  # UC without congestion control: the software loss recovery alone.
  for run in "rc" "bifrost-uc" "bifrost-uc --cc none"; do
    name=$(echo "$run" | tr -d ' -')
    echo "-- write_bw -s 65536 -t 128 -D 3 --transport $run"
    flags="write_bw -s 65536 -t 128 -D 3 --timeout 5 --report_gbits --transport $run"
    scripts/testbed.sh --loss-permille 10 \
      --b "$perf $flags -B \$BF_B_IP > /dev/null 2>&1" \
      --a "$perf $flags \$BF_B_IP > out/real-$name.txt 2>&1" \
      || echo "   the run ended with an error (plain RC: go-back-N may run out of retries):"
    grep -E "^ #bytes|^ 65536|retransmissions :|transport       :|error:" "out/real-$name.txt" || true
  done
fi
