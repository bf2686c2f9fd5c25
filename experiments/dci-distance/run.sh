#!/usr/bin/env bash
# Fig. 12 of the Bifrost DCI paper, scaled: FCT (average, p99) of inter-DC flows against the
# length of the DCI link, for Bifrost DCI, PFC, SWING, CBFC-ideal and IRN, one workload
# (README.md). The scenarios, the buffer sizing per length and the summary are
# experiments/dci-workload-fct's own code (runs.py imports its scenario.py; its summarize.py
# writes results.csv). Runs go to out/dci-distance/<cc>_<length>/<scheme>_<cdf>_<load>/.
#
#   experiments/dci-distance/run.sh                         # the sweep (README: wall time)
#   LENGTHS="8km 100km" SCHEMES="bifrost pfc" experiments/dci-distance/run.sh
set -euo pipefail
source "$(dirname "$0")/../common.sh"
schemes="${SCHEMES:-bifrost pfc swing cbfc irn}"
lengths="${LENGTHS:-8km 40km 100km 200km 400km 600km}"
cdf="${CDF:-fb_hadoop}"
load="${LOAD:-0.7}"
flows="${FLOWS:-2000}"        # per direction (dci-workload-fct: 8,000 FB_Hadoop)
dcqcn="${DCQCN:-1}"
seed="${SEED:-1}"
out="${OUT:-$root/out/dci-distance}"
results="${RESULTS:-$here}"
cc=$([ "$dcqcn" = 1 ] && echo dcqcn || echo nodcqcn)

cd "$root"
build_sim
mkdir -p "$out"
start=$(date +%s)

for len in $lengths; do
  python3 "$here/runs.py" size "$tool" "$len" "$out/sizing_$len.json"
  for scheme in $schemes; do
    dir="$out/${cc}_$len/${scheme}_${cdf}_${load}"
    mkdir -p "$dir"
    python3 "$here/runs.py" make "$scheme" "$cdf" "$load" "$len" "$out/sizing_$len.json" \
      "$flows" "$seed" "$dcqcn" "$dir/scenario.toml"
    t0=$(date +%s)
    echo "[$(( t0 - start ))s] $cc $len: $scheme $cdf load $load" >&2
    if nice -n 5 "$tool" run "$dir/scenario.toml" --out "$dir" --quiet >"$dir/run.log" 2>&1; then
      echo "  $(grep -E '^flows finished' "$dir/run.log" || true) ($(( $(date +%s) - t0 )) s)" >&2
    else
      echo "  failed, see $dir/run.log" >&2
      tail -n 3 "$dir/run.log" >&2
    fi
  done
done

mkdir -p "$results"
/usr/bin/python3 "$here/../dci-workload-fct/summarize.py" "$out" "$results/results.csv" \
  "$results/sizing.csv"
/usr/bin/python3 "$here/plot.py" "$results/results.csv" "$results/fct_vs_distance.png"
echo "run.sh: $(( $(date +%s) - start )) s of runs" >&2
cat "$results/results.csv"
