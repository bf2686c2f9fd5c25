#!/usr/bin/env bash
# FaSR's fast vs slow path (Fig. 9(b)) and the one-loss premise (Fig. 3) under incast and a
# real workload (websearch), on bifrost-sim with FaSR soft RNICs (see README.md). Builds
# bifrost-sim (-j1, unless NO_BUILD=1), runs every scenario, writes results.csv and
# paths_by_traffic.png next to this script. About 3 minutes of wall time once built.
#
#   experiments/fasr-paths-by-traffic/run.sh
#   BIFROST_BUILD=/path/to/build NO_BUILD=1 experiments/fasr-paths-by-traffic/run.sh
#   SCALE=0.2 experiments/fasr-paths-by-traffic/run.sh     # quick look: 5x less simulated time
#   PAPER_QPS=1,8,64 PAPER_LOADS=0.9 ...                    # the paper setting's points
set -euo pipefail
source "$(dirname "$0")/../common.sh"
scale="${SCALE:-1}"
senders="${SENDERS:-2,4,8,16,32,64}"
loads="${LOADS:-0.3,0.5,0.7,0.9}"
paper_qps="${PAPER_QPS:-1,2,4,8,16,32,64}"
paper_loads="${PAPER_LOADS:-0.9}"

cd "$root"
build_sim
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
manifest="$tmp/manifest.csv"
echo "series,kind,x,cc,pool,seed,warmup_us,duration_us,dir" > "$manifest"

us() { /usr/bin/python3 -c "print(max(1, round($1 * $scale)))"; }

# One point: the run to the end of the window and, when warmup > 0, the same run (same seed,
# so the same events) stopped at the warmup; results.csv takes the difference, so only
# episodes that end inside (warmup, duration] count.
point() {  # series kind x cc pool seed warmup_us duration_us
  local series=$1 kind=$2 x=$3 cc=$4 pool=$5 seed=$6 warmup=$7 duration=$8
  local dir="$tmp/$series-$x-s$seed"
  for t in $warmup $duration; do
    [ "$t" -gt 0 ] || continue
    /usr/bin/python3 "$here/make_scenario.py" "$dir/$t" "$kind" "$x" --cc "$cc" --pool "$pool" \
      --duration-us "$t" --seed "$seed"
    "$tool" run "$dir/$t/scenario.toml" --out "$dir/$t/out" --quiet > "$dir/$t/stdout.txt"
  done
  echo "== $series $x seed $seed: $(head -1 "$dir/$duration/stdout.txt")" >&2
  echo "$series,$kind,$x,$cc,$pool,$seed,$warmup,$duration,$dir" >> "$manifest"
}

# The headline: the FaSR paper's own setting for Fig. 3 (section III-B: 200 Gb/s, MTU 1024,
# BDP 500, sender load 90%): 1% random loss and the 3V1 incast with QPs per sender as the axis,
# and websearch at 90% load; 1 ms warm-up.
for q in ${paper_qps//,/ }; do
  point paper-random paper-random "$q" none large 1 "$(us 1000)" "$(us 10000)"
  point paper-incast paper-incast "$q" none large 1 "$(us 1000)" "$(us 10000)"
done
for load in ${paper_loads//,/ }; do
  point paper-websearch paper-websearch "$load" none large 1 "$(us 1000)" "$(us 30000)"
done
# Sensitivity: our 100 Gb/s series. Incast without congestion control: steady state after
# 0.5 ms, 10 ms simulated.
for n in ${senders//,/ }; do
  point incast incast "$n" none large 1 "$(us 500)" "$(us 10000)"
  point incast-pool20 incast "$n" none default 1 "$(us 500)" "$(us 10000)"
done
# Incast with DCQCN: the losses all fall in the first burst, so the whole run counts; three
# seeds (different start jitter) per point.
for n in ${senders//,/ }; do
  for seed in 1 2 3; do
    point incast-dcqcn incast "$n" dcqcn large "$seed" 0 "$(us 5000)"
  done
done
# Websearch, poisson arrivals at each load of the host links: 1 ms warm-up, 30 ms simulated;
# without CC (large and 20-unit pool) and with DCQCN.
for load in ${loads//,/ }; do
  point websearch websearch "$load" none large 1 "$(us 1000)" "$(us 30000)"
  point websearch-pool20 websearch "$load" none default 1 "$(us 1000)" "$(us 30000)"
  point websearch-dcqcn websearch "$load" dcqcn large 1 "$(us 1000)" "$(us 30000)"
done

/usr/bin/python3 "$here/collect.py" "$manifest" "$here/results.csv"
/usr/bin/python3 "$here/plot.py" "$here"
echo "results in $here/results.csv, paths_by_traffic.png" >&2
