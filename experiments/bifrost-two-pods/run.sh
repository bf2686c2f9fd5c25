#!/usr/bin/env bash
# The Bifröst paper's Fig. 8: a full mesh of 512 KB RPCs (I/O depth 8) among the 8 hosts of two
# pods of a k = 4 fat tree, with PFC everywhere, with PFC at the ToR and aggregation switches but
# a lossy core (the paper's network: intra-pod traffic lossless, inter-pod traffic lossy), and
# with no PFC at all; over Bifröst UC (software reliability) and Bifröst RC (the NIC's go-back-N),
# with Swift and with no congestion control (an unlimited window, so queues build).
# Writes results.csv and two_pods.png here. About two minutes once bifrost-sim is built.
#
#   experiments/bifrost-two-pods/run.sh
#   TRANSPORTS=bifrost-uc experiments/bifrost-two-pods/run.sh   # one transport
#   CHUNK_LOSS_BUDGET=0 experiments/bifrost-two-pods/run.sh     # chunks ignore loss (the old way)
#   BASE_RTT=50us experiments/bifrost-two-pods/run.sh           # the paper's base RTT (earlier runs)
# The base RTT defaults to 12us, this fabric's unloaded RTT on its longest (inter-pod) path
# (12.1-12.6 us measured; 4 us within a ToR, 8-9 us within a pod), not the paper's 50 us, which
# keeps a standing queue on a fabric of a few microseconds (issue 25).
set -euo pipefail
source "$(dirname "$0")/../common.sh"
transports="${TRANSPORTS:-bifrost-uc bifrost-rc}"
networks="${NETWORKS:-pfc_everywhere pfc_below_core lossy}"
ccs="${CCS:-swift none}"
budget="${CHUNK_LOSS_BUDGET:-}"  # [transport] chunk_loss_budget; empty: the default (0.05)

cd "$root"
build_sim
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

for transport in $transports; do
  for cc in $ccs; do
    for network in $networks; do
      echo "== $transport, cc $cc, $network" >&2
      /usr/bin/python3 "$here/analyze.py" scenario "$here/scenario.toml.in" "$transport" "$cc" \
        "$network" >"$tmp/s.toml"
      [ -z "$budget" ] || sed -i "/^\[transport\]/a chunk_loss_budget = $budget" "$tmp/s.toml"
      sed -i "/^\[transport\]/a base_rtt = \"${BASE_RTT:-12us}\"" "$tmp/s.toml"
      "$tool" run "$tmp/s.toml" --out "$tmp/runs/$transport:$cc:$network" --quiet >"$tmp/stdout" \
        2>"$tmp/stderr" || { cat "$tmp/stderr" >&2; exit 1; }
      grep -E "^(flows|Bifr)" "$tmp/stdout" >&2 || true
    done
  done
done
/usr/bin/python3 "$here/analyze.py" results "$tmp/runs" "$here/results.csv"
/usr/bin/python3 "$here/plot.py" "$here"
echo "results in $here/results.csv, two_pods.png" >&2
