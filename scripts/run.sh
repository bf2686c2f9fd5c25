#!/usr/bin/env bash
# The main job: set up, build the Release configuration and show what bifrost does today.
#  1. bifrost-wire-demo: a scripted RoCEv2 exchange of every opcode, written to a pcap with
#     correct checksums and ICRC, read back and decoded (open out/bifrost-demo.pcap in Wireshark).
#  2. bifrost-sim: a leaf-spine network under WebSearch traffic and incast, simulated packet by
#     packet with soft RNICs at the hosts: first commodity RC (go-back-N) over PFC, then the
#     same traffic PFC-free with IRN's selective repeat; results and plots in out/sim-demo/ and
#     out/sim-demo-pfc-free/.
#  3. bifrost-perf over real UDP between two network namespaces with 1% random loss (root only):
#     plain RC (the NIC's go-back-N) against Bifröst UC (software selective retransmission),
#     64 KiB messages, 128 in flight, a few seconds each.
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
  for transport in rc bifrost-uc; do
    echo "-- write_bw -s 65536 -t 128 -D 3 --transport $transport"
    flags="write_bw -s 65536 -t 128 -D 3 --timeout 5 --report_gbits --transport $transport"
    scripts/testbed.sh --loss-permille 10 \
      --b "$perf $flags -B \$BF_B_IP > /dev/null 2>&1" \
      --a "$perf $flags \$BF_B_IP > out/real-$transport.txt 2>&1" \
      || echo "   (the run failed; see below)"
    grep -E "^ #bytes|^ 65536|retransmissions :|transport       :|error:" "out/real-$transport.txt" || true
  done
fi
