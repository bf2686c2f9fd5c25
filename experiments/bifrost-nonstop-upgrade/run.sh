#!/usr/bin/env bash
# The Bifröst paper's Fig. 12: a non-stop upgrade from plain RC under PFC and DCQCN to Bifröst,
# then PFC and DCQCN off, with RPCs running throughout; beside it the two end states run alone.
# Writes results.csv, timeline.csv and upgrade.png here. A few seconds once bifrost-sim is built.
#
#   experiments/bifrost-nonstop-upgrade/run.sh
set -euo pipefail
source "$(dirname "$0")/../common.sh"

cd "$root"
build_sim
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# run name, to_bifrost, lossless_off (1 s is after the run: "never"), Swift's base RTT. The
# last two runs ask what Swift's target costs the small RPCs on this 5 us fabric.
runs=("upgrade 20ms 40ms 50us" "plain_rc_only 1s 1s 50us" "bifrost_only 0ms 0ms 50us"
  "bifrost_only_base20us 0ms 0ms 20us" "bifrost_only_base10us 0ms 0ms 10us")
for run in "${runs[@]}"; do
  read -r name to_bifrost lossless_off base_rtt <<<"$run"
  echo "== $name (to Bifröst at $to_bifrost, PFC and DCQCN off at $lossless_off)" >&2
  sed "s/@TO_BIFROST@/$to_bifrost/; s/@LOSSLESS_OFF@/$lossless_off/; s/@BASE_RTT@/$base_rtt/" \
    "$here/scenario.toml.in" >"$tmp/s.toml"
  # ACK_DELAY (e.g. 0us: no bound, as before issue 20) overrides the NICs' ACK-delay bound.
  [ -z "${ACK_DELAY:-}" ] || sed -i "s/^model = \"rnic\"$/&\nack_delay = \"$ACK_DELAY\"/" "$tmp/s.toml"
  "$tool" run "$tmp/s.toml" --out "$tmp/runs/$name" >"$tmp/stdout" 2>"$tmp/stderr" ||
    { cat "$tmp/stderr" >&2; exit 1; }
  grep -E "^(upgrade|flows|closed)" "$tmp/stderr" "$tmp/stdout" -h >&2 || true
done
/usr/bin/python3 "$here/analyze.py" "$tmp/runs" "$here"
/usr/bin/python3 "$here/plot.py" "$here"
echo "results in $here/results.csv, timeline.csv, upgrade.png" >&2
