#!/usr/bin/env bash
# FCT of 8 KB latency flows on Fig. 9's testbed, PFC vs Bifrost DCI (vs SWING in 9b) on the long
# links (see README.md). Builds bifrost-sim in the Release build, writes one scenario per
# (scheme, point) with cases.py from testbed.toml.in, runs them and writes the case's results
# CSV and plot here. CASE picks the case (Fig. 9a, 9b, 9c, 9d); 9b's files keep their names
# (results.csv, results_seed<S>.csv for another SEED, fct.png: results.csv as bars, the
# results_seed*.csv found here as dots), the others are results_<case>.csv and fct_<case>.png.
#
#   experiments/dci-fct/run.sh                 # 9b: N = 1 8 32 128, PFC, Bifrost DCI and SWING
#   SEED=2 OUT=out/dci-fct-seed2 experiments/dci-fct/run.sh   # a second seed
#   FLOWS="8" SCHEMES="dci" experiments/dci-fct/run.sh   # one N, one scheme
#   CASE=9a experiments/dci-fct/run.sh         # bandwidth flow size 64 KB..4 MB, PFC and DCI
#   CASE=9c experiments/dci-fct/run.sh         # case B, both readings of its intra-DC flow
#   CASE=9d experiments/dci-fct/run.sh         # case C, three long links, N = 3 8 32 128
set -euo pipefail
source "$(dirname "$0")/../common.sh"
case_="${CASE:-9b}"
flows="${FLOWS:-$(python3 "$here/cases.py" points "$case_")}"
if [ "$case_" = 9b ]; then default_schemes="pfc dci swing"; else default_schemes="pfc dci"; fi
schemes="${SCHEMES:-$default_schemes}"
seed="${SEED:-1}"
pfc_mode="${PFC:-paper}"   # paper (XOFF = XON 6 MiB + 9.5 MiB headroom) or ours (XOFF 10 MB)
suffix=""
if [ "$case_" != 9b ]; then suffix="_$case_"; fi
out="${OUT:-$root/out/dci-fct$suffix}"
if [ "$pfc_mode" != paper ]; then suffix="${suffix}_pfc$pfc_mode"; fi
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
  for scheme in $schemes; do
    name="${scheme}_$n"
    python3 "$here/cases.py" make "$case_" "$n" "$here/testbed.toml.in" "$out/$name.toml" \
      "$seed" "$(flow_control "$scheme")"
    echo "== $name" >&2
    "$tool" run "$out/$name.toml" --out "$out/$name" --quiet | tail -n 3 >&2
  done
done

/usr/bin/python3 "$here/summarize.py" "$case_" "$out" "$results"
# Seed 1 as bars, the other seeds' results as dots.
csvs=()
for f in "$here/results$suffix.csv" "$here"/results_seed?$suffix.csv; do
  if [ -e "$f" ]; then csvs+=("$f"); fi
done
/usr/bin/python3 "$here/plot.py" "${csvs[@]}" "$here/fct$suffix.png"
cat "$results"
