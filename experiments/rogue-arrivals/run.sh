#!/usr/bin/env bash
# RoGUE's Fig. 12: one long flow into a server, then 4 more added one at a time and removed one
# at a time, (a) at 10 Gb/s in 1 s averages, (b) at 40 Gb/s with 1 us links in 0.1 s averages.
# Each series runs scenario.toml.in in bifrost-sim with a flow file from schedule.py. Writes
# samples.csv (flow x interval goodput), events.csv (per flow start and finish: the fair share
# after it, whether and when every active flow came within +-10% of it), results.csv and
# arrivals.png.
#
#   experiments/rogue-arrivals/run.sh                # (a) and (b), several minutes
#   SERIES="a_10g" experiments/rogue-arrivals/run.sh
set -euo pipefail
source "$(dirname "$0")/../common.sh"
build_sim
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# cx3pro: the testbed's NIC (8 per-priority limiters, 160 KB rate-change delay); (b) simulates
# the paper's ns3-rdma NIC, which has no such delay.
cx3pro='[nic.profile.cx3pro]
hosts = "all"'
# label | rate Gb/s | MTU | phase T | interval | literal | floor | cx3pro? | seed | pacing basis
# (cwnd / base_rtt as §3.3's formula, or cwnd / RTT: README, "The Vegas floor"; base_rtt if empty;
# "+applied": RTT samples time each batch at the rate the limiter applied to it)
all_series=(
  "a_10g 10 2048 4 1s true 0us yes 1"          # (a): the testbed, 1 s averages, T = 4 s
  "b_40g 40 1024 0.5 100ms true 0us no 1"      # (b): the simulator, 0.1 s averages, T = 0.5 s
  "a_10g_floor50us 10 2048 4 1s true 50us yes 1"
  "b_40g_floor50us 40 1024 0.5 100ms true 50us no 1"
  "a_10g_rate_per_rtt 10 2048 4 1s true 0us yes 1 current_rtt+applied"
  "b_40g_rate_per_rtt 40 1024 0.5 100ms true 0us no 1 current_rtt+applied"
  # The RC estimator's chain cut every 2 batches (rc_anchor_every, ours: README)
  "a_10g_anchor2 10 2048 4 1s true 0us yes 1 base_rtt 2"
  "b_40g_anchor2 40 1024 0.5 100ms true 0us no 1 base_rtt 2"
  "a_10g_anchor2_per_rtt 10 2048 4 1s true 0us yes 1 current_rtt+applied 2"
  "b_40g_anchor2_per_rtt 40 1024 0.5 100ms true 0us no 1 current_rtt+applied 2"
)
# The floor50us rows add about 5 minutes, the rate_per_rtt rows as much: SERIES="a_10g b_40g
# a_10g_floor50us b_40g_floor50us a_10g_rate_per_rtt b_40g_rate_per_rtt".
wanted="${SERIES:-a_10g b_40g}"
echo "series,flow,src,start_s,end_s,gbps" >"$here/samples.csv"
echo "series,time_s,event,flow,active,fair_gbps,intervals,intervals_within,converge_s,last_interval_worst_deviation" >"$here/events.csv"
for entry in "${all_series[@]}"; do
  read -r label rate mtu phase interval literal floor profile seed basis anchor <<<"$entry"
  basis=${basis:-base_rtt}
  [[ $basis == *+applied ]] && applied=true || applied=false
  [[ " $wanted " == *" $label "* ]] || continue
  mkdir -p "$tmp/$label"
  goodput=$(/usr/bin/python3 "$here/schedule.py" "$rate" "$mtu" "$phase" "$tmp/$label/flows.csv")
  duration=$(/usr/bin/python3 -c "print(f'{9 * $phase * 1000:.0f}ms')")
  [ "$profile" = yes ] && nic=$cx3pro || nic=""
  SEED=$seed MTU=$mtu DURATION=$duration RATE="${rate}Gbps" NIC=$nic LITERAL=$literal \
    FLOOR=$floor INTERVAL=$interval RATE_BASIS="${basis%+applied}" SAMPLE_APPLIED=$applied \
    ANCHOR=${anchor:-0} \
    /usr/bin/python3 "$here/../fill_template.py" "$here/scenario.toml.in" "$tmp/$label/run.toml"
  echo "== $label ($rate Gb/s, T = $phase s, $interval samples, literal_vegas $literal, floor $floor)" >&2
  "$tool" run "$tmp/$label/run.toml" --out "$tmp/$label/out" --quiet >"$tmp/$label.txt"
  /usr/bin/python3 "$here/analyse.py" "$tmp/$label/out" "$label" "$goodput" "$here/samples.csv" \
    "$here/events.csv"
done
/usr/bin/python3 "$here/summarise.py" "$here/events.csv" >"$here/results.csv"
cat "$here/results.csv"
/usr/bin/python3 "$here/plot.py" "$here/samples.csv" "$here/events.csv" "$here/arrivals.png" $wanted
