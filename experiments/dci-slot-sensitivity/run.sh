#!/usr/bin/env bash
# Fig. 11 of the Bifrost DCI paper, scaled: Bifrost DCI's FCT (average, p99) of inter-DC flows
# and the buffer it needs (H + k S = Delta + 2 Rs T + k S, derived by the code) as its time
# slot T varies, at one link length and workload, with PFC as the reference (README.md).
# Scenarios and sizing are experiments/dci-workload-fct's code (runs.py imports its
# scenario.py); rows are made by its summarize.py (summarize.py here adds T and the buffer).
# Runs go to out/dci-slot-sensitivity/<cc>_<length>/{pfc,bifrost_T<slot>}_<cdf>_<load>/.
#
#   experiments/dci-slot-sensitivity/run.sh                 # the sweep (README: wall time)
#   SLOTS="5us 50us" experiments/dci-slot-sensitivity/run.sh
set -euo pipefail
source "$(dirname "$0")/../common.sh"
slots="${SLOTS:-1us 2us 5us 10us 20us 50us 80us}"
length="${LENGTH:-100km}"
cdf="${CDF:-fb_hadoop}"
load="${LOAD:-0.7}"
flows="${FLOWS:-2000}"        # per direction
dcqcn="${DCQCN:-1}"
seed="${SEED:-1}"
out="${OUT:-$root/out/dci-slot-sensitivity}"
results="${RESULTS:-$here}"
cc=$([ "$dcqcn" = 1 ] && echo dcqcn || echo nodcqcn)

cd "$root"
build_sim
mkdir -p "$out"
start=$(date +%s)
sizing="$out/sizing_$length.json"
# 100us is in the probe only, to record the error that rejects it at 400 Gb/s.
python3 "$here/runs.py" size "$tool" "$length" "$sizing" $slots 100us

run_one() {  # run_one SCHEME SLOT NAME
  local dir="$out/${cc}_$length/$3"
  mkdir -p "$dir"
  python3 "$here/runs.py" make "$1" "$2" "$cdf" "$load" "$length" "$sizing" "$flows" "$seed" \
    "$dcqcn" "$dir/scenario.toml"
  local t0
  t0=$(date +%s)
  echo "[$(( t0 - start ))s] $cc $length: $3" >&2
  if nice -n 5 "$tool" run "$dir/scenario.toml" --out "$dir" --quiet >"$dir/run.log" 2>&1; then
    echo "  $(grep -E '^flows finished' "$dir/run.log" || true) ($(( $(date +%s) - t0 )) s)" >&2
  else
    echo "  failed, see $dir/run.log" >&2
    tail -n 3 "$dir/run.log" >&2
  fi
}

run_one pfc - "pfc_${cdf}_${load}"
for slot in $slots; do
  run_one bifrost "$slot" "bifrost_T${slot}_${cdf}_${load}"
done

mkdir -p "$results"
/usr/bin/python3 "$here/summarize.py" "$out" "$results/results.csv"
cp "$sizing" "$results/sizing.json"
/usr/bin/python3 "$here/plot.py" "$results/results.csv" "$results/fct_vs_slot.png"
echo "run.sh: $(( $(date +%s) - start )) s of runs" >&2
cat "$results/results.csv"
