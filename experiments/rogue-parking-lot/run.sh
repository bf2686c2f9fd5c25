#!/usr/bin/env bash
# RoGUE's Figs. 11 and 13: a 4 -> 1 incast on a parking lot (each flow over a different number
# of congested links) at 10 Gb/s, and a periodic WRITE(0) probe from a separate host to the
# incast server. Each series runs scenario.toml.in in bifrost-sim. Writes samples.csv (flow x
# interval goodput), probes.csv (every probe's RTT), results.csv (per series, beside the
# paper's numbers) and parking_lot.png.
#
#   experiments/rogue-parking-lot/run.sh               # every series (a few minutes)
#   SERIES=paper experiments/rogue-parking-lot/run.sh  # the headline only
set -euo pipefail
source "$(dirname "$0")/../common.sh"
build_sim
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# label | literal_vegas | base_rtt_floor | rate | duration | interval | probe every
#   | probes kept in probes.csv (every n-th) | seed | pacing basis (cwnd / base_rtt as §3.3's
#   formula, or cwnd / RTT as its "no more than cwnd ... per RTT": README, "The Vegas floor";
#   "+applied": RTT samples time each batch at the rate the limiter applied to it)
#   [| rc_anchor_every: the RC estimator's chain cut every k batches, 0 = §3.3 as written]
# The paper gives no probe interval; its probes join the server's queue, and RoGUE's shares move
# with them (README), so the headline's 1 ms is set beside 0.1 ms and a single probe.
all_series=(
  "paper true 0us 10Gbps 3s 100ms 1ms 1 1 base_rtt"  # the paper's testbed setup, literally
  "paper_probe100us true 0us 10Gbps 3s 100ms 100us 10 1 base_rtt"
  "paper_probe_once true 0us 10Gbps 3s 100ms 10s 1 1 base_rtt" # one probe at the start only
  "floor50us true 50us 10Gbps 3s 100ms 1ms 1 1 base_rtt"     # footnote 1's base-RTT floor at 50 us (ours)
  "linux_vegas false 0us 10Gbps 3s 100ms 1ms 1 1 base_rtt"   # our Linux reading of alpha/beta
  "linux_vegas_probe100us false 0us 10Gbps 3s 100ms 100us 10 1 base_rtt"
  "rate_per_rtt true 0us 10Gbps 3s 100ms 1ms 1 1 current_rtt"  # the paper's, paced at cwnd / RTT
  "rate_per_rtt_probe100us true 0us 10Gbps 3s 100ms 100us 10 1 current_rtt"
  "rate_per_rtt_applied true 0us 10Gbps 3s 100ms 1ms 1 1 current_rtt+applied"
  "anchor2 true 0us 10Gbps 3s 100ms 1ms 1 1 base_rtt 2"  # the paper's, the chain cut every 2 batches
  "anchor2_per_rtt true 0us 10Gbps 3s 100ms 1ms 1 1 current_rtt 2"
  "anchor2_per_rtt_applied true 0us 10Gbps 3s 100ms 1ms 1 1 current_rtt+applied 2"
)
wanted="${SERIES:-paper paper_probe100us paper_probe_once floor50us linux_vegas linux_vegas_probe100us rate_per_rtt rate_per_rtt_probe100us rate_per_rtt_applied anchor2 anchor2_per_rtt anchor2_per_rtt_applied}"
echo "series,flow,start_s,end_s,gbps" >"$here/samples.csv"
echo "series,posted_s,rtt_us" >"$here/probes.csv"
echo "series,jain_run,p50_us,p90_us,probes,drops" >"$tmp/totals.csv"
for entry in "${all_series[@]}"; do
  read -r label literal floor rate duration interval probe keep seed basis anchor <<<"$entry"
  [[ " $wanted " == *" $label "* ]] || continue
  SEED=$seed DURATION=$duration RATE=$rate LITERAL=$literal FLOOR=$floor \
    INTERVAL=$interval PROBE_INTERVAL=$probe RATE_BASIS=${basis%+applied} \
    SAMPLE_APPLIED=$([[ $basis == *+applied ]] && echo true || echo false) ANCHOR=${anchor:-0} \
    /usr/bin/python3 "$here/../fill_template.py" "$here/scenario.toml.in" "$tmp/$label.toml"
  echo "== $label (literal_vegas $literal, floor $floor, $rate, $duration)" >&2
  "$tool" run "$tmp/$label.toml" --out "$tmp/$label" --quiet >"$tmp/$label.txt"
  /usr/bin/python3 "$here/analyse.py" "$tmp/$label" "$label" "$here/samples.csv" \
    "$here/probes.csv" "$tmp/totals.csv" "$keep"
done
/usr/bin/python3 "$here/summarise.py" "$here/samples.csv" "$tmp/totals.csv" >"$here/results.csv"
cat "$here/results.csv"
/usr/bin/python3 "$here/plot.py" "$here/samples.csv" "$here/probes.csv" "$here/parking_lot.png"
