#!/usr/bin/env bash
# Fig. 15 of the Bifrost DCI paper, scaled: throughput of the long-haul (DCI) link over time under
# a sustained load, Bifrost DCI vs PFC vs SWING (README.md). The network, buffers and schemes are
# those of experiments/dci-workload-fct (its scenario.py sizes the long-haul buffers; ours
# imports it and sets the load). Every DC 0 server runs a long flow to DC 1 (the DCI link is
# the bottleneck of that demand) while Poisson traffic inside DC 1 disturbs the downstream side.
# Runs go one at a time to out/dci-throughput-stability/<cc>_<length>/<scheme>_bg<load>/;
# results.csv, series.csv and throughput.png go here.
#
#   experiments/dci-throughput-stability/run.sh              # everything, about 3 min
#   SCHEMES="bifrost pfc" BG_LOADS=0.5 CCS=nodcqcn experiments/dci-throughput-stability/run.sh
#
# Environment: SCHEMES (bifrost pfc swing; cbfc also works), BG_LOADS (background load of each
# DC 1 host link: 0 0.3 0.5), BG_CDF (websearch), CCS (nodcqcn dcqcn), LENGTH (8km), DURATION
# (20ms), INTERVAL (sampling, 100us), WARMUP (left out of the statistics, 1ms), SEED (1), OUT,
# RESULTS, BIFROST_BUILD (the build folder), NO_BUILD (1: use the bifrost-sim built there).
set -euo pipefail
source "$(dirname "$0")/../common.sh"
schemes="${SCHEMES:-bifrost pfc swing}"
bg_loads="${BG_LOADS:-0 0.3 0.5}"
bg_cdf="${BG_CDF:-websearch}"
ccs="${CCS:-nodcqcn dcqcn}"
length="${LENGTH:-8km}"   # the DCI link (paper: 600 km); 8 km dates from a PFC check, since fixed, that capped PFC at 8.4 km
duration="${DURATION:-20ms}"
interval="${INTERVAL:-100us}"
warmup="${WARMUP:-1ms}"
seed="${SEED:-1}"
out="${OUT:-$root/out/dci-throughput-stability}"
results="${RESULTS:-$here}"
fct_dir="$root/experiments/dci-workload-fct"

cd "$root"
build_sim
mkdir -p "$out"
start=$(date +%s)

# The long-haul buffers of each scheme, derived from the link by dci-workload-fct's code.
python3 "$fct_dir/scenario.py" size "$tool" "$length" "$out/sizing_$length.json"

for cc in $ccs; do
  case "$cc" in dcqcn) dcqcn=1 ;; nodcqcn) dcqcn=0 ;; *) echo "unknown CCS entry $cc" >&2; exit 2 ;; esac
  for bg in $bg_loads; do
    for scheme in $schemes; do
      dir="$out/${cc}_$length/${scheme}_bg$bg"
      mkdir -p "$dir"
      python3 "$here/scenario.py" make "$scheme" "$length" "$out/sizing_$length.json" "$seed" \
        "$dcqcn" "$duration" "$interval" "$bg_cdf" "$bg" "$dir/scenario.toml"
      echo "[$(( $(date +%s) - start ))s] ${cc}_$length: $scheme, DC 1 background $bg_cdf $bg" >&2
      nice -n 5 "$tool" run "$dir/scenario.toml" --out "$dir" --quiet >"$dir/run.log" 2>&1 || {
        echo "  failed, see $dir/run.log" >&2; tail -n 3 "$dir/run.log" >&2; continue; }
      /usr/bin/python3 "$here/summarize.py" --one "$dir" "$warmup" >&2
    done
  done
done

mkdir -p "$results"
/usr/bin/python3 "$here/summarize.py" "$out" "$warmup" "$results/results.csv" "$results/series.csv"
/usr/bin/python3 "$here/plot.py" "$results/series.csv" "$results/results.csv" \
  "$results/throughput.png" "$length"
echo "run.sh: $(( $(date +%s) - start )) s of runs" >&2
cat "$results/results.csv"
