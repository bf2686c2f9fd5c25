#!/usr/bin/env bash
# Fig. 14 of the Bifrost DCI paper, scaled: all-to-all traffic between the 32 servers of two DCs
# (intra- and inter-DC flows) at 50 % inter-DC load of the DCI link; FCT (average, p99) of
# inter-DC, intra-DC and all flows for Bifrost DCI, PFC, CBFC-ideal, SWING and IRN (README.md).
# The network, buffers and schemes are those of experiments/dci-workload-fct (its scenario.py
# sizes the long-haul buffers; ours imports it and swaps the workload). Runs go one at a time
# to out/dci-all-to-all/<cc>_<length>/<scheme>_<cdf>_<load>/; results.csv and fct.png go here.
#
#   experiments/dci-all-to-all/run.sh                          # everything, about 5 min
#   SCHEMES="bifrost pfc" CDFS=fb_hadoop NO_DCQCN=0 experiments/dci-all-to-all/run.sh
#
# Environment: SCHEMES (bifrost pfc cbfc swing irn), CDFS (fb_hadoop websearch), LOAD (inter-DC
# load of each DCI direction, 0.5), LENGTH (8km), NO_DCQCN (1: also the lossless schemes without
# congestion control), SEED (1), FLOWS_FB_HADOOP (16000) / FLOWS_WEBSEARCH (1600) flows per run,
# OUT (runs), RESULTS (where results.csv and fct.png go), BIFROST_BUILD (the build folder),
# NO_BUILD (1: use the bifrost-sim already built there).
set -euo pipefail
source "$(dirname "$0")/../common.sh"
schemes="${SCHEMES:-bifrost pfc cbfc swing irn}"
cdfs="${CDFS:-fb_hadoop websearch}"
load="${LOAD:-0.5}"
length="${LENGTH:-8km}"   # the DCI link (paper: 600 km); 8 km dates from a PFC check, since fixed, that capped PFC at 8.4 km
no_dcqcn="${NO_DCQCN:-1}"
seed="${SEED:-1}"
out="${OUT:-$root/out/dci-all-to-all}"
results="${RESULTS:-$here}"
fct_dir="$root/experiments/dci-workload-fct"

# Flows per run (both DCs, both directions): about 2 GB of each workload.
flows_for() {
  case "$1" in
    websearch) echo "${FLOWS_WEBSEARCH:-1600}" ;;
    fb_hadoop) echo "${FLOWS_FB_HADOOP:-16000}" ;;
    *) echo "unknown CDF $1" >&2; exit 2 ;;
  esac
}

cd "$root"
build_sim
mkdir -p "$out"
start=$(date +%s)

# The long-haul buffers of each scheme, derived from the link by dci-workload-fct's code.
python3 "$fct_dir/scenario.py" size "$tool" "$length" "$out/sizing_$length.json"

run_one() {
  local set="$1" scheme="$2" cdf="$3" dcqcn="$4"
  local dir="$out/$set/${scheme}_${cdf}_${load}"
  mkdir -p "$dir"
  python3 "$here/scenario.py" make "$scheme" "$cdf" "$load" "$length" \
    "$out/sizing_$length.json" "$(flows_for "$cdf")" "$seed" "$dcqcn" "$dir/scenario.toml"
  echo "[$(( $(date +%s) - start ))s] $set: $scheme $cdf, inter-DC load $load" >&2
  nice -n 5 "$tool" run "$dir/scenario.toml" --out "$dir" --quiet >"$dir/run.log" 2>&1 || {
    echo "  failed, see $dir/run.log" >&2; tail -n 3 "$dir/run.log" >&2; return 0; }
  grep -E "^flows finished" "$dir/run.log" | sed 's/^/  /' >&2 || true
}

for cdf in $cdfs; do
  for scheme in $schemes; do
    run_one "dcqcn_$length" "$scheme" "$cdf" 1
    # IRN without congestion control is a lossy network of line-rate senders: not a data point.
    if [ "$no_dcqcn" = 1 ] && [ "$scheme" != irn ]; then
      run_one "nodcqcn_$length" "$scheme" "$cdf" 0
    fi
  done
done

mkdir -p "$results"
/usr/bin/python3 "$here/summarize.py" "$out" "$results/results.csv"
/usr/bin/python3 "$here/plot.py" "$results/results.csv" "$results/fct.png" "$length"
echo "run.sh: $(( $(date +%s) - start )) s of runs" >&2
cat "$results/results.csv"
