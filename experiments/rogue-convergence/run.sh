#!/usr/bin/env bash
# RoGUE's Fig. 16 (convergence and fairness of 4 flows on a parking lot at 40 Gb/s, 0.1 s
# samples) and its PFC test (32 flows started at once: how long do pauses last?), for RoGUE,
# TIMELY and DCQCN. Each series runs scenario.toml.in in bifrost-sim; per-flow goodput comes from
# [metrics] flow_throughput_interval. Writes samples.csv (flow x interval), results.csv (per
# series, beside the paper's numbers) and convergence.png.
#
#   experiments/rogue-convergence/run.sh                    # every series (several minutes)
#   SERIES="rogue timely dcqcn" experiments/rogue-convergence/run.sh
set -euo pipefail
source "$(dirname "$0")/../common.sh"
build_sim
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

pfc_on='[switch.pfc]
threshold = "dynamic"'
# ns3-rdma's DCQCN constants (mix/config.txt), which the paper's simulator shipped with.
dcqcn_nic='dcqcn = true
dcqcn_g = 0.00390625
dcqcn_cnp_interval = "50us"
dcqcn_alpha_update_period = "55us"
dcqcn_increase_period = "60us"
dcqcn_increase_bytes = "300000B"
dcqcn_fast_recovery_stages = 5
dcqcn_additive_increase = "40Mbps"
dcqcn_hyper_increase = "200Mbps"'
# RoGUE's per-flow goodput counts whole verbs (docs/scenarios.md, flow_throughput.csv), so the
# application posts 1 MB verbs rather than the paper's 128 MB; RoGUE cuts both into the same
# 128 KB segments.
rogue='kind = "rogue-rc"
literal_vegas = true
verb = "1MB"'
rogue_linux='kind = "rogue-rc"
verb = "1MB"'
rogue_floor='kind = "rogue-rc"
literal_vegas = true
verb = "1MB"
rc_idle_start_floor = true'
# The paper's, its limiter at cwnd / RTT rather than cwnd / base_rtt and its samples timed at the
# rate the limiter applied (README, "The Vegas floor").
rogue_per_rtt='kind = "rogue-rc"
literal_vegas = true
verb = "1MB"
rate_basis = "current_rtt"
sample_applied_rate = true'
# The paper's with the RC estimator's chain cut every 2 batches (rc_anchor_every, ours, issue 24:
# README, "Anchoring the RC estimator"), alone and with the limiter at cwnd / RTT.
rogue_anchor2='kind = "rogue-rc"
literal_vegas = true
verb = "1MB"
rc_anchor_every = 2'
rogue_anchor2_per_rtt="$rogue_anchor2
rate_basis = \"current_rtt\"
sample_applied_rate = true"
timely='kind = "bifrost-rc"
cc = "timely"'
plain_rc='kind = "rc"'

# The parking lot: 4 switches in a chain, 2 hosts each (host 2s and 2s+1 on switch s). The
# server is host 7 on the last switch; the senders are hosts 0, 2, 4 and 6, three, two, one and
# no chain links away, so all four share the server's link and cross 4, 3, 2 and 1 links.
parking='kind = "parking_lot"
hops = 3
hosts_per_switch = 2'
star33='kind = "star"
hosts = 33'

# label | scheme | topology | pfc | senders | receiver | size | duration | interval | seed
#   [| transmit timestamps, default true: Bifröst RC's RTT from the last packet's departure]
series_of() {
  case "$1" in
    rogue) echo "rogue parking on [0,2,4,6] 7 4GB 1s 100ms 1" ;;
    timely) echo "timely parking on [0,2,4,6] 7 4GB 1s 100ms 1" ;;
    dcqcn) echo "dcqcn parking on [0,2,4,6] 7 4GB 1s 100ms 1" ;;
    rogue_nopfc) echo "rogue parking off [0,2,4,6] 7 4GB 1s 100ms 1" ;;
    rogue_linux) echo "rogue_linux parking on [0,2,4,6] 7 4GB 1s 100ms 1" ;;
    rogue_floor) echo "rogue_floor parking on [0,2,4,6] 7 4GB 1s 100ms 1" ;;
    rogue_per_rtt) echo "rogue_per_rtt parking on [0,2,4,6] 7 4GB 1s 100ms 1" ;;
    rogue_anchor2) echo "rogue_anchor2 parking on [0,2,4,6] 7 4GB 1s 100ms 1" ;;
    rogue_anchor2_per_rtt) echo "rogue_anchor2_per_rtt parking on [0,2,4,6] 7 4GB 1s 100ms 1" ;;
    timely_from_posting) echo "timely parking on [0,2,4,6] 7 4GB 1s 100ms 1 false" ;;
    pfc_rogue) echo 'rogue star33 on "1..32" 0 1GB 20ms 1ms 1' ;;
    pfc_timely) echo 'timely star33 on "1..32" 0 1GB 20ms 1ms 1' ;;
    pfc_dcqcn) echo 'dcqcn star33 on "1..32" 0 1GB 20ms 1ms 1' ;;
    *) echo "unknown series $1" >&2; exit 2 ;;
  esac
}
wanted="${SERIES:-rogue timely dcqcn rogue_nopfc rogue_linux rogue_floor rogue_per_rtt rogue_anchor2 rogue_anchor2_per_rtt timely_from_posting pfc_rogue pfc_timely pfc_dcqcn}"

echo "series,flow,start_s,end_s,gbps" >"$here/samples.csv"
echo "series,pauses,paused_us_max_port,paused_us_total,drops,flows" >"$tmp/pauses.csv"
for label in $wanted; do
  read -r scheme topo pfc senders receiver size duration interval seed stamps <<<"$(series_of "$label")"
  stamps=${stamps:-true}
  case "$scheme" in
    rogue) transport=$rogue nic="" ;;
    rogue_linux) transport=$rogue_linux nic="" ;;
    rogue_floor) transport=$rogue_floor nic="" ;;
    rogue_per_rtt) transport=$rogue_per_rtt nic="" ;;
    rogue_anchor2) transport=$rogue_anchor2 nic="" ;;
    rogue_anchor2_per_rtt) transport=$rogue_anchor2_per_rtt nic="" ;;
    timely) transport=$timely nic="" ;;
    dcqcn) transport=$plain_rc nic=$dcqcn_nic ;;
  esac
  [ "$topo" = parking ] && topology=$parking || topology=$star33
  [ "$pfc" = on ] && pfc_text=$pfc_on || pfc_text=""
  SEED=$seed DURATION=$duration TOPOLOGY=$topology PFC=$pfc_text NIC=$nic TRANSPORT=$transport \
    SENDERS=$senders RECEIVER=$receiver SIZE=$size INTERVAL=$interval TIMESTAMPS=$stamps \
    /usr/bin/python3 "$here/../fill_template.py" "$here/scenario.toml.in" "$tmp/$label.toml"
  echo "== $label ($scheme, $topo, PFC $pfc, $duration)" >&2
  "$tool" run "$tmp/$label.toml" --out "$tmp/$label" --quiet >"$tmp/$label.txt"
  /usr/bin/python3 "$here/analyse.py" "$tmp/$label" "$label" "$here/samples.csv" "$tmp/pauses.csv"
done
/usr/bin/python3 "$here/summarise.py" "$here/samples.csv" "$tmp/pauses.csv" >"$here/results.csv"
cat "$here/results.csv"
/usr/bin/python3 "$here/plot.py" "$here/samples.csv" "$here/convergence.png"
