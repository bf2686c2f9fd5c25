#!/usr/bin/env bash
# RoGUE's Fig. 10: real vs estimated throughput of an 8 -> 1 incast at 10 Gb/s. Each series runs
# scenario.toml.in in bifrost-sim and writes one row per flow and interval to samples.csv
# (measured goodput from the sender's link, RoGUE's cwnd/RTT estimate averaged over the same
# interval), the summary per series to results.csv, and cdf.png.
#
#   experiments/rogue-incast-estimate/run.sh              # all series (about a minute)
#   SERIES=paper experiments/rogue-incast-estimate/run.sh # the headline only
set -euo pipefail
source "$(dirname "$0")/../common.sh"
build_sim
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# label literal_vegas base_rtt_floor duration interval seed
all_series=(
  "paper true 0us 3s 1s 1"           # the paper's setup: alpha 4 / beta 2 as written, 1 s averages
  "paper_100ms true 0us 3s 100ms 1"  # the same run in 0.1 s intervals (more samples per flow)
  "paper_seed2 true 0us 3s 1s 2"
  "floor50us true 50us 3s 1s 1"      # base RTT lower-bounded at 50 us (footnote 1; ours)
  "floor50us_100ms true 50us 3s 100ms 1"
  "linux_vegas false 0us 3s 1s 1"    # our default reading: increase below 2, decrease above 4
  "rate_per_rtt true 0us 3s 1s 1 current_rtt"  # the paper's, the limiter at cwnd / RTT (README)
  "rate_per_rtt_100ms true 0us 3s 100ms 1 current_rtt"
  "rate_per_rtt_applied true 0us 3s 1s 1 current_rtt+applied"  # and samples at the applied rate
  # The RC estimator's chain cut every 2 batches (rc_anchor_every, ours: README, "Anchoring")
  "anchor2 true 0us 3s 1s 1 base_rtt 2"
  "anchor2_per_rtt true 0us 3s 1s 1 current_rtt 2"
  "anchor2_per_rtt_applied true 0us 3s 1s 1 current_rtt+applied 2"
)
wanted="${SERIES:-paper paper_100ms paper_seed2 floor50us floor50us_100ms linux_vegas rate_per_rtt rate_per_rtt_100ms rate_per_rtt_applied anchor2 anchor2_per_rtt anchor2_per_rtt_applied}"
echo "series,interval_s,flow,start_s,goodput_gbps,estimate_gbps,estimate_samples,rtt_mean_us" >"$here/samples.csv"
for entry in "${all_series[@]}"; do
  read -r label literal floor duration interval seed basis anchor <<<"$entry"
  basis=${basis:-base_rtt}
  [[ $basis == *+applied ]] && applied=true || applied=false
  [[ " $wanted " == *" $label "* ]] || continue
  sed -e "s/@LITERAL@/$literal/" -e "s/@FLOOR@/$floor/" -e "s/@DURATION@/$duration/" \
    -e "s/@RATE_BASIS@/${basis%+applied}/" -e "s/@SAMPLE_APPLIED@/$applied/" \
    -e "s/@INTERVAL@/$interval/" -e "s/@ANCHOR@/${anchor:-0}/" \
    -e "s/@SEED@/$seed/" "$here/scenario.toml.in" >"$tmp/$label.toml"
  echo "== $label (literal_vegas $literal, $duration in $interval intervals)" >&2
  "$tool" run "$tmp/$label.toml" --out "$tmp/$label" --quiet >"$tmp/$label.txt"
  /usr/bin/python3 "$here/analyse.py" "$tmp/$label" "$label" >>"$here/samples.csv"
done
/usr/bin/python3 "$here/summarise.py" "$here/samples.csv" >"$here/results.csv"
cat "$here/results.csv"
/usr/bin/python3 "$here/plot.py" "$here/samples.csv" "$here/cdf.png"
