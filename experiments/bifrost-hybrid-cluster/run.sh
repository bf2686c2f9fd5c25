#!/usr/bin/env bash
# The Bifröst paper's Fig. 10: throughput of ConnectX-4-like vs ConnectX-5-like hosts sharing a
# lossless cluster, over plain RC (the NICs' go-back-N and DCQCN) and over Bifröst (software CC),
# with a sweep of the profiles' named difference (CX-5's DCQCN rate-increase timer and byte
# counter). Writes results.csv and hybrid_cluster.png here. About 30 seconds once bifrost-sim
# is built.
#
#   experiments/bifrost-hybrid-cluster/run.sh
#   SEEDS=1 POINTS="same profiles" experiments/bifrost-hybrid-cluster/run.sh   # a quick look
set -euo pipefail
source "$(dirname "$0")/../common.sh"
seeds="${SEEDS:-1 2 3 4 5}"
points="${POINTS:-same T150us T55us T20us B256KB B1MB profiles}"
systems_swept="plain_rc bifrost_rc_dcqcn"  # NIC DCQCN on: the point matters
systems_once="bifrost_rc bifrost_uc"       # NIC DCQCN off: the point cannot matter

cd "$root"
build_sim
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

run_one() {  # system point seed
  echo "== $1, CX-5 point $2, seed $3" >&2
  /usr/bin/python3 "$here/analyze.py" scenario "$here/scenario.toml.in" "$1" "$2" "$3" \
    >"$tmp/s.toml"
  # ACK_DELAY (e.g. 0us: no bound, as before issue 20) overrides the NICs' ACK-delay bound.
  [ -z "${ACK_DELAY:-}" ] || sed -i "s/^model = \"rnic\"$/&\nack_delay = \"$ACK_DELAY\"/" "$tmp/s.toml"
  "$tool" run "$tmp/s.toml" --out "$tmp/runs/$1:$2:$3" --quiet >"$tmp/stdout" 2>"$tmp/stderr" ||
    { cat "$tmp/stderr" >&2; exit 1; }
  grep -E "^closed loop" "$tmp/stdout" | sed 's/ (.*), / /' >&2 || true
}

for seed in $seeds; do
  for system in $systems_swept; do
    for point in $points; do run_one "$system" "$point" "$seed"; done
  done
  for system in $systems_once; do run_one "$system" profiles "$seed"; done
done
/usr/bin/python3 "$here/analyze.py" results "$tmp/runs" "$here/results.csv"
/usr/bin/python3 "$here/plot.py" "$here"
echo "results in $here/results.csv, hybrid_cluster.png" >&2
