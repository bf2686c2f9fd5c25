#!/usr/bin/env bash
# Figs. 2, 3 and 6 of the RoGUE paper (§3.1, §5.1), the cost of signalling: RC READs of 4 KB ..
# 1 MB at line rate; signals, WQEs posted and NIC clock reads per GB, RoGUE against RoCE (the
# NIC alone), and CPU per GB.
#   sim   tools/bifrost-rogue-verbs (two ConnectX-3 Pro soft RNICs, 10 Gb/s, MTU 2048): counts,
#         and the CPU RoGUE's host CPU model charges (5 us a signal of its own, 1 us a clock
#         read: RogueConfig), as a share of one core at the rate reached. Two application
#         patterns: every_verb (each verb signalled: Fig. 2's "signaling once per segment") and
#         per_mib (one signal per MiB the application asks for: RoGUE then signals per 64 KB
#         batch, Fig. 3's "infrequent signaling")
#   real  (root) real.sh: bifrost-perf read_bw on the namespace testbed, plain RC against
#         --transport rogue-rc: RoGUE's counters per GB and the getrusage CPU seconds per GB of
#         both processes (the soft NIC's data path included: the plain RC row is that part)
#   experiments/rogue-signaling-cost/run.sh          # about two minutes; with real.sh about six
#   REAL=0 experiments/rogue-signaling-cost/run.sh   # the simulator only
set -euo pipefail
source "$(dirname "$0")/../common.sh"
export CMAKE_BUILD_PARALLEL_LEVEL=1
tool_and_tmp bifrost-rogue-verbs
sim="$here/sim.csv"
rm -f "$sim"
bytes_per_run=$((64 << 20))  # measured per size and scheme: 64 MiB

for size in 4096 16384 65536 262144 1048576; do
  for pattern in every_verb per_mib; do
    if [ "$pattern" = every_verb ]; then
      group=0 groups=$(((256 << 10) / size > 4 ? (256 << 10) / size : 4)) per_group=$size
    else
      group=$((1 << 20)) groups=2 per_group=$((size > (1 << 20) ? size : (1 << 20)))
    fi
    measured=$((bytes_per_run / per_group))
    for scheme in "roce" "rogue --signal-cost-us 5 --clock-read-cost-us 1"; do
      # shellcheck disable=SC2086
      "$tool" --scheme $scheme --sizes "$size" --group-bytes "$group" --groups "$groups" \
        --warmup 8 --measured "$measured" --label "$pattern" --csv "$sim" >/dev/null
    done
  done
done
echo "wrote $sim"

# The real runtime's rows (root only): bifrost-perf over the namespace testbed.
if [ "$(id -u)" -eq 0 ] && [ "${REAL:-1}" = 1 ]; then "$here/real.sh"; fi

/usr/bin/python3 "$here/summarise.py" "$here"
/usr/bin/python3 "$here/plot.py" "$here/results.csv" "$here/signaling.png"
