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

# run name, to_bifrost, lossless_off (1 s is after the run: "never"), the [transport] keys.
# Headline: the paper's configuration (profile = "paper"). Sensitivity: the product default
# (our earlier rows), and what Swift's 50 us target costs the small RPCs on this 5 us fabric.
paper='profile = "paper"'
runs=("upgrade|20ms|40ms|$paper" "plain_rc_only|1s|1s|$paper" "bifrost_only|0ms|0ms|$paper"
  "upgrade_default|20ms|40ms|base_rtt = \"50us\"" "bifrost_only_default|0ms|0ms|base_rtt = \"50us\""
  "bifrost_only_base20us|0ms|0ms|base_rtt = \"20us\"" "bifrost_only_base10us|0ms|0ms|base_rtt = \"10us\"")
# Pauses per phase: summary.json counts them over a run, so the runs under PFC are also cut at
# the phase ends (20 and 40 ms; the same seed and events up to there) and analyze.py takes the
# differences.
cuts=(upgrade plain_rc_only upgrade_default)
simulate() {  # name, to_bifrost, lossless_off, transport keys, [cut]
  local name=$1 cut=${5:-}
  sed "s/@TO_BIFROST@/$2/; s/@LOSSLESS_OFF@/$3/; s/@TRANSPORT_KEYS@/$4/" \
    "$here/scenario.toml.in" >"$tmp/s.toml"
  # ACK_DELAY (e.g. 0us: no bound, as before issue 20) overrides the NICs' ACK-delay bound.
  [ -z "${ACK_DELAY:-}" ] || sed -i "s/^model = \"rnic\"$/&\nack_delay = \"$ACK_DELAY\"/" "$tmp/s.toml"
  if [ -n "$cut" ]; then
    sed -i "s/^duration = \"80ms\".*/duration = \"$cut\"/; s/^stop = \"flows_done\"/stop = \"duration\"/" \
      "$tmp/s.toml"
    name="${name}_cut$cut"
  fi
  "$tool" run "$tmp/s.toml" --out "$tmp/runs/$name" >"$tmp/stdout" 2>"$tmp/stderr" ||
    { cat "$tmp/stderr" >&2; exit 1; }
  grep -E "^(upgrade|flows|closed)" "$tmp/stderr" "$tmp/stdout" -h >&2 || true
}
for run in "${runs[@]}"; do
  IFS='|' read -r name to_bifrost lossless_off keys <<<"$run"
  echo "== $name (to Bifröst at $to_bifrost, PFC and DCQCN off at $lossless_off; $keys)" >&2
  simulate "$name" "$to_bifrost" "$lossless_off" "$keys"
  for c in "${cuts[@]}"; do
    [ "$c" = "$name" ] || continue
    simulate "$name" "$to_bifrost" "$lossless_off" "$keys" 20ms
    simulate "$name" "$to_bifrost" "$lossless_off" "$keys" 40ms
  done
done
/usr/bin/python3 "$here/analyze.py" "$tmp/runs" "$here"
/usr/bin/python3 "$here/plot.py" "$here"
echo "results in $here/results.csv, timeline.csv, upgrade.png" >&2
