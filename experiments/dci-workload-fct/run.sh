#!/usr/bin/env bash
# Fig. 13 of the Bifrost DCI paper, scaled: FCT (average, p99) of inter-DC flows under FB_Hadoop
# and WebSearch at 30% and 70% of the DCI link, for Bifrost DCI, PFC, CBFC-ideal, SWING and IRN
# (see README.md). Builds bifrost-sim (Release), sizes each scheme's long-haul buffer from the
# scaled link, writes one scenario per run from scenario.toml.in (scenario.py), runs them one at
# a time and writes results.csv and fct.png here. Runs go to out/dci-workload-fct/<set>/<run>/.
#
#   experiments/dci-workload-fct/run.sh                      # everything, about 8 min on 2 cores
#   SCHEMES="bifrost pfc" CDFS=websearch LOADS=0.7 NO_DCQCN=0 CHECK_LENGTH= \
#     experiments/dci-workload-fct/run.sh                    # one point, two schemes
#
# Sets of runs: dcqcn_<LENGTH> (the paper's setup, all schemes), nodcqcn_<LENGTH> (the lossless
# schemes without congestion control, NO_DCQCN=1), and the scale check: CHECK_POINT (one CDF and
# load) at CHECK_LENGTH for every scheme, with and without DCQCN.
set -euo pipefail
source "$(dirname "$0")/../common.sh"
schemes="${SCHEMES:-bifrost pfc cbfc swing irn}"
loads="${LOADS:-0.3 0.7}"
cdfs="${CDFS:-fb_hadoop websearch}"
length="${LENGTH:-8km}"              # the DCI link (paper: 600 km); see README "Scaling"
check_length="${CHECK_LENGTH-4km}"   # empty: no scale check
check_point="${CHECK_POINT:-fb_hadoop 0.7}"
no_dcqcn="${NO_DCQCN:-1}"
seed="${SEED:-1}"
out="${OUT:-$root/out/dci-workload-fct}"
results="${RESULTS:-$here}"          # where results.csv, sizing.csv and fct.png go
# PFC_XOFF (bytes) replaces the scaled long-haul PFC XOFF (a sensitivity run; use another OUT).
# DCI_BUFFER=static: the paper's switch buffers (10 MB shared inside the DCs, no shared pool in the
# border switches; scenario.py, README "The DCI switch's buffer"); default shared (one size).

# Flows per direction: about 1 GB of each workload, some 1,600 WebSearch and 16,000 FB_Hadoop
# inter-DC flows per run.
flows_for() {
  case "$1" in
    websearch) echo "${FLOWS_WEBSEARCH:-800}" ;;
    fb_hadoop) echo "${FLOWS_FB_HADOOP:-8000}" ;;
    *) echo "unknown CDF $1" >&2; exit 2 ;;
  esac
}

# Another experiment may be building in build/release: wait until no ninja works there.
wait_for_build_dir() {
  local pid
  while true; do
    local busy=0
    for pid in $(pgrep -x ninja || true); do
      [ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" = "$build" ] && busy=1
    done
    [ "$busy" = 0 ] && return
    echo "waiting for a build running in $build ..." >&2
    sleep 20
  done
}

cd "$root"
wait_for_build_dir
CMAKE_BUILD_PARALLEL_LEVEL=1 build_tools bifrost-sim
tool="$build/tools/bifrost-sim"
mkdir -p "$out"
start=$(date +%s)

# run_one SET SCHEME CDF LOAD LENGTH DCQCN: one simulation; its stdout summary goes to run.log
# (summarize.py reads the NIC retransmissions and timeouts from it).
run_one() {
  local set="$1" scheme="$2" cdf="$3" load="$4" len="$5" dcqcn="$6"
  local dir="$out/$set/${scheme}_${cdf}_${load}"
  mkdir -p "$dir"
  python3 "$here/scenario.py" make "$scheme" "$cdf" "$load" "$len" "$out/sizing_$len.json" \
    "$(flows_for "$cdf")" "$seed" "$dcqcn" "$dir/scenario.toml"
  echo "[$(( $(date +%s) - start ))s] $set: $scheme $cdf load $load" >&2
  nice -n 5 "$tool" run "$dir/scenario.toml" --out "$dir" --quiet >"$dir/run.log" 2>&1 || {
    echo "  failed, see $dir/run.log" >&2; tail -n 3 "$dir/run.log" >&2; return 0; }
  grep -E "^flows finished" "$dir/run.log" | sed 's/^/  /' >&2 || true
}

for len in $length $check_length; do
  python3 "$here/scenario.py" size "$tool" "$len" "$out/sizing_$len.json"
done

for cdf in $cdfs; do
  for load in $loads; do
    for scheme in $schemes; do
      run_one "dcqcn_$length" "$scheme" "$cdf" "$load" "$length" 1
      # IRN without congestion control is a lossy network of line-rate senders: not a data point.
      if [ "$no_dcqcn" = 1 ] && [ "$scheme" != irn ]; then
        run_one "nodcqcn_$length" "$scheme" "$cdf" "$load" "$length" 0
      fi
    done
  done
done

if [ -n "$check_length" ]; then
  read -r check_cdf check_load <<<"$check_point"
  for scheme in $schemes; do
    run_one "dcqcn_$check_length" "$scheme" "$check_cdf" "$check_load" "$check_length" 1
    if [ "$no_dcqcn" = 1 ] && [ "$scheme" != irn ]; then
      run_one "nodcqcn_$check_length" "$scheme" "$check_cdf" "$check_load" "$check_length" 0
    fi
  done
fi

mkdir -p "$results"
/usr/bin/python3 "$here/summarize.py" "$out" "$results/results.csv" "$results/sizing.csv"
/usr/bin/python3 "$here/plot.py" "$results/results.csv" "$results/fct.png" "$length"
echo "run.sh: $(( $(date +%s) - start )) s of runs" >&2
cat "$results/results.csv"
