#!/usr/bin/env bash
# The premise of FaSR's fast path, the paper's Fig. 3: the probability that a QP loses exactly
# one packet within a recovery period under independent random loss, vs the loss rate and the
# number of the QP's packets in one RTT (see README.md). Computes it analytically (plot.py) and
# measures it as the fraction of FaSR recovery episodes that stay on the fast path, with one QP
# paced at 100/N Gb/s (its fair share among N QPs on a 100 Gb/s link). Builds bifrost-rnic-loss
# in the Release build (build/release, -j1) and writes results.csv and one_loss.png next to this
# script. About a minute once the tool is built.
#
#   experiments/fasr-one-loss/run.sh                  # full run (~4000 losses per point)
#   EPISODES=400 experiments/fasr-one-loss/run.sh     # quick look
set -euo pipefail
source "$(dirname "$0")/../common.sh"
# Each point simulates long enough for about this many data-packet losses: duration =
# EPISODES x RTT / (loss x packets per RTT), at least 20 ms.
episodes="${EPISODES:-4000}"
qps="1 2 3 4 6 8 12 16 24 32"  # N: the QP gets 100/N Gb/s; 67.7/N packets per 6 us RTT
losses="0.001 0.005 0.01 0.02 0.05"
seed="${SEED:-1}"
rtt_us=6
line_packets_per_rtt=67.69  # 100 Gb/s x 6 us / 1,108 B (mean wire size of FaSR's data frames)

cd "$root"
build_tools bifrost-rnic-loss
tool="$build/tools/bifrost-rnic-loss"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

for n in $qps; do
  rate="$(/usr/bin/python3 -c "print(0 if $n == 1 else 100 / $n)")"  # N = 1: unpaced
  echo "== N = $n QPs: the QP at $(/usr/bin/python3 -c "print(100 / $n)") Gb/s" >&2
  for loss in $losses; do
    duration="$(/usr/bin/python3 -c "
k = $line_packets_per_rtt / $n
print(max(20000, round($episodes * $rtt_us / ($loss * k))))")"
    "$tool" -q --engine fasr --loss "$loss" --qp-rate-gbps "$rate" --rtt-us "$rtt_us" \
      --duration-us "$duration" --seed "$seed" --json "$tmp/n${n}_l${loss}.json" | tail -n 1
  done
done

/usr/bin/python3 - "$tmp" "$here" "$qps" "$losses" <<'PY'
import csv, json, math, os, sys
tmp, here, qps, losses = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split()
rows = []
for n in qps:
    for loss in losses:
        with open(os.path.join(tmp, f"n{n}_l{loss}.json")) as f:
            doc = json.load(f)
        s, pt = doc["scenario"], doc["points"][0]
        p, k = pt["loss"], pt["packets_per_rtt"]
        episodes = pt["fast_recoveries"] + pt["slow_recoveries"]
        fast = pt["fast_recoveries"] / episodes if episodes else 0
        # (a) the premise: the loss opens a recovery period of one RTT holding k packets of the
        #     QP; it is repaired on the fast path if none of the other k - 1 is lost.
        premise = (1 - p) ** (k - 1)
        # (b) another reading: of the RTT windows of k packets that lose anything, the share
        #     that lose exactly one.
        window = k * p * (1 - p) ** (k - 1) / (1 - (1 - p) ** k)
        # (c) FaSR's recovery period as this simulator realizes it. The retransmission of the
        #     lost packet leaves in the first pacing slot after the SACK of the packet that
        #     followed the loss is back: `others` = ceil(k) packets go out before it (2 more
        #     unpaced: the port queue ahead of it). A loss among the first others - 1 shows
        #     before the retransmission arrives and makes the episode slow; a loss of the last
        #     one shows only after, and opens an episode of its own. The retransmission itself
        #     must arrive: on the fast path a lost one waits for the RTO while the sender fills
        #     its 128-packet window, and a loss among those packets makes the episode slow.
        others = math.ceil(k) + (2 if int(n) == 1 else 0)
        window_cap = s["bdp_packets"]
        tail = max(0, window_cap - others - 1)
        mechanism = (1 - p) ** (others - 1) * (1 - p + p * (1 - p) ** tail)
        rows.append({
            "qps": int(n),
            "qp_rate_gbps": s["qp_rate_gbps"] or s["rate_gbps"],
            "packets_per_rtt": round(k, 3),
            "loss": p,
            "duration_us": s["duration_us"],
            "data_packets_sent": pt["data_packets_sent"],
            "data_packets_lost": pt["data_packets_lost"],
            "episodes": episodes,
            "fast_recoveries": pt["fast_recoveries"],
            "slow_recoveries": pt["slow_recoveries"],
            "sim_one_loss": round(fast, 4) if episodes else "",
            # Binomial standard error of sim_one_loss.
            "sim_stderr": round(math.sqrt(fast * (1 - fast) / episodes), 4) if episodes else "",
            "premise_formula": round(premise, 4),
            "window_formula": round(window, 4),
            "mechanism_model": round(mechanism, 4),
            "mechanism_others": others,
            "fast_path_packets": pt["fast_path_packets"],
            "slow_path_packets": pt["slow_path_packets"],
            "timeouts": pt["timeouts"],
            "goodput_fraction": round(pt["goodput_fraction"], 4),
            "verify_failures": pt["verify_failures"],
            "qp_error": pt["qp_error"],
        })
with open(os.path.join(here, "results.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)
PY
/usr/bin/python3 "$here/plot.py" "$here"
echo "results in $here/results.csv, one_loss.png" >&2
