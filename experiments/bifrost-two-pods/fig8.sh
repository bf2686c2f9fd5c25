#!/usr/bin/env bash
# The Bifröst paper's Fig. 8 (§4.3), scaled (README): per-pod sending throughput over time of
# ARDMA (plain RC, the NIC's DCQCN) and Bifröst (profile = "paper") in an intra-pod full mesh
# (lossless) and an inter-pod one (PFC below the spine only). Writes fig8.csv, fig8.png here.
#
#   experiments/bifrost-two-pods/fig8.sh
#   RUNS="inter:ardma" OUT=/tmp/a.csv experiments/bifrost-two-pods/fig8.sh   # one run, elsewhere
#   FABRIC=100Gbps OUT=/tmp/b.csv experiments/bifrost-two-pods/fig8.sh   # non-blocking fabric
set -euo pipefail
source "$(dirname "$0")/../common.sh"
runs="${RUNS:-intra:ardma intra:bifrost-uc inter:ardma inter:bifrost-uc inter:bifrost-rc}"

cd "$root"
build_sim
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
out="${OUT:-$here/fig8.csv}"
echo "test,system,pod,hosts,start_ms,link_gbps_per_host,goodput_gbps_per_host" >"$out"
for run in $runs; do
  test="${run%%:*}" system="${run#*:}"
  echo "== $test, $system" >&2
  /usr/bin/python3 "$here/fig8.py" scenario "$here/fig8_scenario.toml.in" "$test" "$system" \
    >"$tmp/s.toml"
  "$tool" run "$tmp/s.toml" --out "$tmp/$run" --quiet >"$tmp/stdout" 2>"$tmp/stderr" \
    || { cat "$tmp/stderr" >&2; exit 1; }
  grep -E "^(flows|Bifr|simulated)" "$tmp/stdout" >&2 || true
  /usr/bin/python3 "$here/fig8.py" series "$tmp/$run" "$test" "$system" "$out"
done
[ -n "${OUT:-}" ] || /usr/bin/python3 "$here/fig8.py" plot "$out" "$here/fig8.png"
/usr/bin/python3 "$here/fig8.py" summary "$out" >&2
