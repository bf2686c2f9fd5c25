#!/usr/bin/env bash
# The paper's "37% less buffer" (section VI-A1) redone on topology A: the arithmetic in bytes
# (arithmetic.csv), the saving against PFC's XOFF with the paper's 9.5 MB headroom
# (xoff_sweep.csv), and topology A simulated with the paper's settings and an XOFF sweep
# (results.csv). See README.md.
#
#   experiments/dci-buffer/run.sh           # about 40 s after the build
#   SEED=1 experiments/dci-buffer/run.sh    # seed 1 hashes both bandwidth flows onto one link
set -euo pipefail
source "$(dirname "$0")/../common.sh"
seed="${SEED:-2}"
out="${OUT:-$root/out/dci-buffer}"
template="$root/experiments/dci-fct/testbed.toml.in"
cd "$root"
build_sim
mkdir -p "$out"

# 1. What the code derives for Bifrost (H + k S, k = 1, frames of 1,130 bytes) at T = 5 and 10 us.
printf '{"5us": %s, "10us": %s}\n' \
  "$(python3 "$here/runs.py" probe "$tool" "$template" 5us)" \
  "$(python3 "$here/runs.py" probe "$tool" "$template" 10us)" > "$out/sizing.json"
python3 "$here/runs.py" arithmetic "$out/sizing.json" "$here/arithmetic.csv" "$here/xoff_sweep.csv"

# 2. Topology A, the paper's two bandwidth flows (hosts A and B to C) and 8 KB latency flows.
pfc() {  # xoff, xon, headroom ("" = from the link)
  printf '[switch.flow_control.dci]\nkind = "pfc"\nthreshold = "static"\nxoff = "%s"\nxon = "%s"\n' "$1" "$2"
  if [ -n "$3" ]; then printf 'headroom = "%s"\n' "$3"; fi
}
dci() {  # slot, buffer ("" = the code's bound)
  printf '[switch.flow_control.dci]\nkind = "dci"\nslot = "%s"\nleak_every = 1\n' "$1"
  if [ -n "$2" ]; then printf 'buffer = "%s"\n' "$2"; fi
}
# name | scheme | reserved MiB per port | note | flow control table
runs=(
  "pfc_xoff6MiB|pfc|15.5|the paper's PFC: XOFF = XON 6 MB + 9.5 MB headroom|$(pfc 6MiB 6MiB 9.5MiB)"
  "dci_T5_H9.72MiB|dci|9.72|the paper's H = 9.72 MB; T = 5 us, the T that gives Delta + 3 Rs T = 9.72 MiB|$(dci 5us 10192159B)"
  "dci_T10_H9.72MiB|dci|9.72|the paper's H at the paper's T = 10 us|$(dci 10us 10192159B)"
  "dci_T10|dci|$(python3 -c "import json;print(round(json.load(open('$out/sizing.json'))['10us']/2**20,3))")|ours: T = 10 us, H + k S = Delta + 2 Rs T + k S from the link|$(dci 10us '')"
  "pfc_xoff1MiB|pfc|10.5|XOFF sweep, headroom 9.5 MB|$(pfc 1MiB 1MiB 9.5MiB)"
  "pfc_xoff2MiB|pfc|11.5|XOFF sweep, headroom 9.5 MB|$(pfc 2MiB 2MiB 9.5MiB)"
  "pfc_xoff4MiB|pfc|13.5|XOFF sweep, headroom 9.5 MB|$(pfc 4MiB 4MiB 9.5MiB)"
  "pfc_xoff8MiB|pfc|17.5|XOFF sweep, headroom 9.5 MB|$(pfc 8MiB 8MiB 9.5MiB)"
  "pfc_xoff9.5MiB|pfc|19.0|XOFF sweep: the paper's worst-case XOFF, one BDP|$(pfc 9.5MiB 9.5MiB 9.5MiB)"
  "pfc_ours|pfc|19.08|ours (dci-fct): XOFF one round trip 10 MB, XON 9.9 MB, headroom from the link|$(pfc 10MB 9.9MB '')"
)
for r in "${runs[@]}"; do
  IFS='|' read -r name scheme reserved note fc <<<"$r"
  # The table spans lines: everything after the fourth '|'.
  fc="${r#*|*|*|*|}"
  mkdir -p "$out/$name"
  python3 "$here/runs.py" make "$template" "$out/$name.toml" "$seed" 2 "$fc"
  python3 -c 'import json,sys; json.dump({"scheme": sys.argv[1], "n": 2, "reserved_mib": float(sys.argv[2]), "note": sys.argv[3]}, open(sys.argv[4], "w"))' \
    "$scheme" "$reserved" "$note" "$out/$name/meta.json"
  echo "== $name" >&2
  if ! "$tool" run "$out/$name.toml" --out "$out/$name" --quiet 2> "$out/$name/stderr.txt"; then
    python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); m["note"] += ": rejected: " + open(sys.argv[2]).read().strip().splitlines()[-1].split(": ", 2)[-1]; json.dump(m, open(sys.argv[1], "w"))' \
      "$out/$name/meta.json" "$out/$name/stderr.txt"
  fi
done
python3 "$here/runs.py" summarize "$out" "$here/results.csv"
cat "$here/arithmetic.csv" "$here/results.csv"
