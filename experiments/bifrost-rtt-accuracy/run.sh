#!/usr/bin/env bash
# Fig. 4(b) / A.4 of the Bifröst paper, in simulation: the RTT host 0's sender measures on a
# lightly loaded path while the queue its ACKs come back through is deep, for three ACK paths:
#   ud_priority  the UD QP in the ACK class (priority 6): Bifröst's design
#   ud_same      the UD QP in the data's class: ACKs queue behind data in switch and NIC
#   data_qp      SENDs on the connection's data QP: also behind the QP's own queued data
# plus `reference`: no reverse traffic, so nothing queues on either path. Writes results.csv
# (transport_rtt.csv's h0 -> h1 row per run) and rtt.png here; runs go to out/bifrost-rtt-accuracy/.
# Then the headline: the paper's own setup (paper_setup.toml.in: one client, one server, 64 QPs
# of 1 MB RPCs, the paper's configuration) for the three ACK paths, into
# results_paper_setup.csv; the four runs above are our earlier setup, kept as sensitivity rows.
#   experiments/bifrost-rtt-accuracy/run.sh      # 7 runs x SEEDS, about 1 min per seed
# Environment: SEEDS ("1 2 3"), DURATION ("20ms"), PAPER_DURATION ("50ms": the paper setup's
# rounds of 64 x 1 MiB take ~11.6 ms at line rate, so 20 ms would count one), REVERSE_LOAD
# (0.9), CROSS_LOAD (0.5), OUT, RESULTS.
set -euo pipefail
source "$(dirname "$0")/../common.sh"
seeds="${SEEDS:-1 2 3}"
duration="${DURATION:-20ms}"
paper_duration="${PAPER_DURATION:-50ms}"
reverse_load="${REVERSE_LOAD:-0.9}"
cross_load="${CROSS_LOAD:-0.5}"
out="${OUT:-$root/out/bifrost-rtt-accuracy}"
results="${RESULTS:-$here}"
cd "$root"
CMAKE_BUILD_PARALLEL_LEVEL=1 build_tools bifrost-sim
tool="$build/tools/bifrost-sim"
mkdir -p "$out"
start=$(date +%s)

# HOST_COST: the modelled host CPU time per completion of the *_host rows (paper setup, first
# seed only: a closed loop on two hosts draws nothing random). 3.5 us is derived from Fig. 6(b):
# Bifröst (UC) spends 54.2% of a core on 1 MB requests at ~80 Gb/s, i.e. ~153 k chunks of
# 64 KB per second, 3.5 us of CPU per chunk (its send completion and its share of ACKs).
host_cost="${HOST_COST:-3.5us}"
ack_keys() {
  case "$1" in
    ud_priority | reference) echo 'ack_path = "ud"' ;;
    ud_same) printf 'ack_path = "ud"\nack_priority = false\n' ;;
    data_qp) echo 'ack_path = "data_qp"' ;;
    ud_priority_host) printf 'ack_path = "ud"\ncompletion_cost = "%s"\n' "$host_cost" ;;
    data_qp_host) printf 'ack_path = "data_qp"\ncompletion_cost = "%s"\n' "$host_cost" ;;
  esac
}

# PAPER_ONLY=1: only the paper setup's runs (results_paper_setup.csv); results.csv and rtt.png
# stay as they are.
for seed in $seeds; do
  [ "${PAPER_ONLY:-0}" != 1 ] || break
  for config in reference ud_priority ud_same data_qp; do
    dir="$out/seed$seed/$config"
    mkdir -p "$dir"
    python3 - "$here/scenario.toml.in" "$dir/scenario.toml" "$(ack_keys "$config")" "$seed" \
      "$duration" "$reverse_load" "$cross_load" "$config" <<'PY'
import re, sys
src, dst, keys, seed, duration, reverse, cross, config = sys.argv[1:]
text = open(src).read()
if config == "reference":  # no reverse or cross traffic: nothing queues on the ACK path
    text = re.sub(r'\[\[workload\]\]\nkind = "poisson"\nname = "(reverse|cross)".*?\n\n', "",
                  text, flags=re.S)
for k, v in {"ACK_KEYS": keys, "SEED": seed, "DURATION": duration, "REVERSE_LOAD": reverse,
             "CROSS_LOAD": cross}.items():
    text = text.replace(f"@{k}@", v)
open(dst, "w").write(text)
PY
    echo "[$(( $(date +%s) - start ))s] seed $seed: $config" >&2
    nice -n 5 "$tool" run "$dir/scenario.toml" --out "$dir" --quiet >"$dir/run.log" 2>&1 || {
      echo "  failed, see $dir/run.log" >&2; tail -n 3 "$dir/run.log" >&2; exit 1; }
  done
done
# The paper's own setup (paper_setup.toml.in): the headline rows, results_paper_setup.csv.
first_seed="${seeds%% *}"
for seed in $seeds; do
  configs="ud_priority ud_same data_qp"
  [ "$seed" != "$first_seed" ] || configs="$configs ud_priority_host data_qp_host"
  for config in $configs; do
    dir="$out/paper_setup/seed$seed/$config"
    mkdir -p "$dir"
    keys="$(ack_keys "$config")"
    python3 -c 'import sys; src, dst, keys, seed, duration = sys.argv[1:]
text = open(src).read()
for k, v in {"ACK_KEYS": keys, "SEED": seed, "DURATION": duration}.items():
    text = text.replace(f"@{k}@", v)
open(dst, "w").write(text)' "$here/paper_setup.toml.in" "$dir/scenario.toml" "$keys" "$seed" \
      "$paper_duration"
    echo "[$(( $(date +%s) - start ))s] paper setup, seed $seed: $config" >&2
    nice -n 5 "$tool" run "$dir/scenario.toml" --out "$dir" --quiet >"$dir/run.log" 2>&1 || {
      echo "  failed, see $dir/run.log" >&2; tail -n 3 "$dir/run.log" >&2; exit 1; }
  done
done
python3 "$here/summarize.py" --paper-setup "$out/paper_setup" "$results/results_paper_setup.csv"
if [ "${PAPER_ONLY:-0}" != 1 ]; then
  python3 "$here/summarize.py" "$out" "$results/results.csv"
  /usr/bin/python3 "$here/plot.py" "$results/results.csv" "$results/rtt.png"
fi
echo "done in $(( $(date +%s) - start )) s: $results/results.csv, $results/rtt.png" >&2
