#!/usr/bin/env bash
# NIC memory of the loss-recovery engines vs the number of QPs, the FaSR paper's Fig. 8(b)
# (see README.md). Builds bifrost-fasr-memory in the Release build (build/release), runs it for
# the paper's setting and two variants, and writes results.csv and memory_vs_qps.png next to
# this script. Takes seconds once the tool is built.
#
#   experiments/fasr-memory/run.sh
set -euo pipefail
source "$(dirname "$0")/../common.sh"

tool_and_tmp bifrost-fasr-memory

# A quarter-octave sweep from 1 to 16384 QPs, plus the README's table points. Nothing near a
# crossover is added: the tool computes the crossovers over every integer N.
qps="$(/usr/bin/python3 -c '
pts = {round(2 ** (k / 4)) for k in range(57)} | {1, 16, 64, 145, 146, 256, 1024, 5000, 16384}
print(",".join(str(n) for n in sorted(pts)))')"

# Every run prints and writes both accountings: the paper's (the headline) and what each engine
# here keeps, sender included (the sensitivity row).
echo "== the paper's setting: BDP 74 packets (100 Gb/s, 6 us, 1 KB MTU), default FaSR pool" >&2
"$tool" --qps "$qps" --csv "$tmp/bdp74.csv" >/dev/null
"$tool" --qps 1,16,45,47,64,145,146,256,1024,5000,16384
echo >&2
echo "== IRN's bitmaps at BDP 128 packets (RecoveryConfig's default in-flight cap)" >&2
"$tool" --qps "$qps" --bdp-packets 128 --csv "$tmp/bdp128.csv" | sed -n '/^crossovers/,/^  every/p'
echo >&2
echo "== FaSR with the section III-D pool: 20 units + 70 blocks of 10 bits" >&2
"$tool" --qps "$qps" --fasr-blocks 70 --fasr-block-bits 10 --csv "$tmp/pool_iiid.csv" |
  sed -n '1p;/^== implemented/,$p' | sed -n '1,3p;/^fasr /p;/^crossovers/,$p'

# One file: a leading series column names the run.
{
  echo "series,$(head -n1 "$tmp/bdp74.csv")"
  for s in bdp74 bdp128 pool_iiid; do tail -n +2 "$tmp/$s.csv" | sed "s/^/$s,/"; done
} > "$here/results.csv"
/usr/bin/python3 "$here/plot.py" "$here"
echo "results in $here/results.csv, memory_vs_qps.png" >&2
