#!/usr/bin/env bash
# RoGUE's Fig. 15: 16 hosts send 1 MB flows to random destinations (Poisson arrivals) with a
# 1 KB message 1 in 11, at several loads, over RoGUE (RC), DCTCP's window algorithm over the
# soft NIC, and RoCE (plain RC, no PFC). Writes results.csv (median 1 MB FCT and p90 1 KB FCT per
# scheme and load) and many_pairs.png.
#
#   experiments/rogue-many-pairs/run.sh                             # every scheme and load (~12 min)
#   SCHEMES="rogue-rc dctcp" LOADS="0.3" experiments/rogue-many-pairs/run.sh
set -euo pipefail
source "$(dirname "$0")/../common.sh"
build_sim
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# The paper's loads are on its figure only; ours span light to heavy.
loads="${LOADS:-0.2 0.4 0.6 0.8}"
schemes="${SCHEMES:-rogue-rc rogue-rc-per-rtt dctcp roce}"
arrivals="${ARRIVALS:-1s}"
cp "$here/sizes.cdf" "$tmp/sizes.cdf"
echo "scheme,load,flows,finished,bucket,fct_p50_us,fct_p90_us,fct_p99_us" >"$tmp/rows.csv"
for scheme in $schemes; do
  case "$scheme" in
    rogue-rc) transport='kind = "rogue-rc"
literal_vegas = true' ;;
    # The same, the limiter at cwnd / RTT, samples at the applied rate (README, "The Vegas floor").
    rogue-rc-per-rtt) transport='kind = "rogue-rc"
literal_vegas = true
rate_basis = "current_rtt"
sample_applied_rate = true' ;;
    # The RC estimator's chain cut every 2 batches (rc_anchor_every, ours: README), alone and
    # with the limiter at cwnd / RTT.
    rogue-rc-anchor2) transport='kind = "rogue-rc"
literal_vegas = true
rc_anchor_every = 2' ;;
    rogue-rc-anchor2-per-rtt) transport='kind = "rogue-rc"
literal_vegas = true
rc_anchor_every = 2
rate_basis = "current_rtt"
sample_applied_rate = true' ;;
    # DCTCP's window algorithm (g = 1/16) over Bifröst UC, ECN echoed by its software ACKs.
    dctcp) transport='kind = "bifrost-uc"
cc = "dctcp"' ;;
    roce) transport='kind = "rc"' ;;  # plain RC, no PFC: the NIC's go-back-N alone
    *) echo "unknown scheme $scheme" >&2; exit 2 ;;
  esac
  for load in $loads; do
    SEED=1 DURATION=3s TRANSPORT=$transport LOAD=$load ARRIVALS=$arrivals \
      /usr/bin/python3 "$here/../fill_template.py" "$here/scenario.toml.in" "$tmp/run.toml"
    echo "== $scheme, load $load ($arrivals of arrivals)" >&2
    "$tool" run "$tmp/run.toml" --out "$tmp/out" --quiet >"$tmp/run.txt"
    /usr/bin/python3 - "$tmp/out" "$scheme" "$load" >>"$tmp/rows.csv" <<'PY'
import json, sys
out, scheme, load = sys.argv[1:]
summary = json.load(open(f"{out}/summary.json"))
flows = summary["flows"]
for b in flows["slowdown_by_size"]:
    fct = b["fct_us"]
    print(f"{scheme},{load},{flows['total']},{flows['finished']},{b['bucket']},"
          f"{fct['p50']},{fct['p90']},{fct['p99']}")
PY
  done
done
/usr/bin/python3 "$here/summarise.py" "$tmp/rows.csv" >"$here/results.csv"
cat "$here/results.csv"
/usr/bin/python3 "$here/plot.py" "$here/results.csv" "$here/many_pairs.png"
