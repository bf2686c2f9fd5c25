#!/usr/bin/env bash
# Table 2 of the Virtuoso paper: the chunk (WR size) the lossy chunk search settles on for
# K = 1, 2, 4, 6, 8, 9 paths of 1 Gb/s behind 10 Gb/s hosts, no PFC. Writes results.csv (ours
# beside the paper's row) and chunk_search.png here. See README.md for the pinned parameters.
#
#   experiments/virtuoso-chunk-search/run.sh
#   PATHS=1,2 BUFFER=1260000 experiments/virtuoso-chunk-search/run.sh   # quick look
set -euo pipefail
source "$(dirname "$0")/../common.sh"
tool_and_tmp bifrost-virtuoso-bench
out="$here/results.csv"
paths="${PATHS:-1,2,4,6,8,9}"
# Variants: switch buffer (bytes) and whether the settled search backs off (ours).
variants="${VARIANTS:-630000:paper 1260000:paper 1260000:back-off}"

# The paper's Table 2 (bytes): K, "Max Size" (per iteration, all paths), "Avg Size" (per path).
cat >"$tmp/paper.csv" <<'PAPER'
paths,paper_max,paper_avg
1,700417,700417
2,1300482,650241
4,2537172,634293
6,4405660,734280
8,9371656,1171457
9,18984993,2109400
PAPER

for v in $variants; do
  b=${v%%:*} search=${v#*:}
  echo "== switch buffer $b B, search $search" >&2
  flag=""
  [ "$search" = back-off ] && flag=--back-off
  "$tool" chunk-search --paths "$paths" --buffer "$b" $flag >"$tmp/ours_$v.csv"
done
/usr/bin/python3 - "$tmp" "$out" $variants <<'PY'
import csv, sys
tmp, out, variants = sys.argv[1], sys.argv[2], sys.argv[3:]
paper = {r["paths"]: r for r in csv.DictReader(open(f"{tmp}/paper.csv"))}
with open(out, "w", newline="") as f:
    w = None
    for v in variants:
        b, search = v.split(":")
        rows = list(csv.DictReader(open(f"{tmp}/ours_{v}.csv")))
        base = float(rows[0]["chunk_per_path"]) if rows else 1.0
        for r in rows:
            p = paper[r["paths"]]
            row = {"buffer": b, "search": search, **r,
                   "avg_vs_k1": f"{float(r['chunk_per_path']) / base:.3f}",
                   "paper_max": p["paper_max"], "paper_avg": p["paper_avg"],
                   "paper_avg_vs_k1": f"{int(p['paper_avg']) / 700417:.3f}"}
            if w is None:
                w = csv.DictWriter(f, fieldnames=list(row))
                w.writeheader()
            w.writerow(row)
PY
column -s, -t "$out" >&2
/usr/bin/python3 "$here/plot.py" "$out" "$here/chunk_search.png"
