#!/usr/bin/env bash
# FCT of 8 KB flows under N bandwidth flows on topology A, PFC vs Bifrost DCI vs SWING on the long
# links (see README.md). Builds bifrost-sim in the Release build, writes one scenario per
# (scheme, N) from topology_a.toml.in, runs them and writes results.csv (results_seed<S>.csv
# for another SEED) and fct.png here: results.csv as bars, the results_seed*.csv found here as
# dots.
#
#   experiments/dci-fct/run.sh                 # N = 1 8 32 128, PFC, Bifrost DCI and SWING
#   SEED=2 OUT=out/dci-fct-seed2 experiments/dci-fct/run.sh   # a second seed
#   FLOWS="8" SCHEMES="dci" experiments/dci-fct/run.sh   # one N, one scheme
set -euo pipefail
source "$(dirname "$0")/../common.sh"
flows="${FLOWS:-1 8 32 128}"
schemes="${SCHEMES:-pfc dci swing}"
seed="${SEED:-1}"
pfc_mode="${PFC:-paper}"   # paper (XOFF = XON 6 MiB + 9.5 MiB headroom) or ours (XOFF 10 MB)
out="${OUT:-$root/out/dci-fct}"
suffix=""
if [ "$pfc_mode" != paper ]; then suffix="_pfc$pfc_mode"; fi
if [ "$seed" = 1 ]; then results="$here/results$suffix.csv"; else results="$here/results_seed$seed$suffix.csv"; fi

cd "$root"
build_tools bifrost-sim
tool="$build/tools/bifrost-sim"
mkdir -p "$out"

# The long links' flow control. PFC gets the buffer it needs (experiments/dci-buffer): XOFF one
# round trip of bytes so the queue does not run dry after a resume, XON 100 KB below, and the
# headroom sized from the link by the code. At 80 km (5 ns/m: 400 us one way) and 100 Gb/s
# (12.5 bytes/ns) the round trip carries 800 us x 12.5 GB/s = 10,000,000 bytes.
# DCI's H is left to the code (Delta + 2 Rs T + k S).
flow_control() {
  case "$1" in
    # PFC=paper (the default): section VI-A1's XOFF = XON 6 MB with 9.5 MB of headroom (the
    # paper's MB are MiB, experiments/dci-buffer); PFC=ours: XOFF one round trip (10 MB), XON
    # 9.9 MB, headroom from the link (the sensitivity rows).
    pfc)
      if [ "$pfc_mode" = paper ]; then
        printf '[switch.flow_control.dci]\nkind = "pfc"\nthreshold = "static"\nxoff = "6MiB"\nxon = "6MiB"\nheadroom = "9.5MiB"\n'
      else
        printf '[switch.flow_control.dci]\nkind = "pfc"\nthreshold = "static"\nxoff = "10MB"\nxon = "9.9MB"\n'
      fi ;;
    dci) printf '[switch.flow_control.dci]\nkind = "dci"\nslot = "10us"\nleak_every = 1\n' ;;
    # SWING: a relay at each end of each long link; relay buffer from its rule (one round trip
    # plus jitter), the switches pause their relays with PFC at 198 KB.
    swing) printf '[switch.flow_control.dci]\nkind = "swing"\nxoff = "198KB"\nxon = "198KB"\n' ;;
  esac
}

for n in $flows; do
  if [ "$n" -eq 1 ]; then senders="[0]"; rounds=1; per_host=1; else
    senders="[0, 1]"; rounds=$(( n / 2 )); per_host=$(( n / 2 )); fi
  # Twice what one flow's share of a 100 Gb/s host link carries in the 130 ms run (1625 MB).
  size="$(( 3250 / per_host ))MB"
  for scheme in $schemes; do
    name="${scheme}_n${n}"
    fc="$(flow_control "$scheme")"
    python3 - "$here/topology_a.toml.in" "$out/$name.toml" "$seed" "$senders" "$rounds" \
      "$size" "$fc" <<'PY'
import sys
src, dst, seed, senders, rounds, size, fc = sys.argv[1:]
text = open(src).read()
for key, value in {"SEED": seed, "SENDERS": senders, "ROUNDS": rounds, "SIZE": size,
                   "DCI_FLOW_CONTROL": fc}.items():
    text = text.replace(f"@{key}@", value)
open(dst, "w").write(text)
PY
    echo "== $name" >&2
    "$tool" run "$out/$name.toml" --out "$out/$name" --quiet | tail -n 3 >&2
  done
done

/usr/bin/python3 "$here/summarize.py" "$out" "$results"
# Seed 1 as bars, the other seeds' results as dots.
csvs=()
for f in "$here/results$suffix.csv" "$here"/results_seed?$suffix.csv; do
  if [ -e "$f" ]; then csvs+=("$f"); fi
done
/usr/bin/python3 "$here/plot.py" "${csvs[@]}" "$here/fct$suffix.png"
cat "$results"
