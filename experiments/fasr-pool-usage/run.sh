#!/usr/bin/env bash
# FaSR's shared SR pool at 1% loss vs QPs per server, the FaSR paper's Fig. 10 (see README.md).
# Builds bifrost-sim in the Release build (build/release), runs the paper's topology with FaSR
# soft RNICs for each QP count and each pool in POOLS (make_scenario.py: l2-270B, the headline,
# is 270 B of level-2 bitmap blocks beside 20 level-1 units; 270B is units and blocks together
# in 270 B; default is the soft RNIC's 1,565 B pool), and writes results.csv and pool_usage.png
# next to this script. Rows of pools not in POOLS are kept from the results.csv already there.
#
#   experiments/fasr-pool-usage/run.sh             # headline: all 320 servers, 1 ms; ~10 min
#   POOLS="270B default" ACTIVE_LEAVES=8 DURATION_US=2000 experiments/fasr-pool-usage/run.sh
#   QPS=2,8,32 DURATION_US=500 experiments/fasr-pool-usage/run.sh   # quick look
set -euo pipefail
source "$(dirname "$0")/../common.sh"
qps="${QPS:-2,4,8,16,32,64,128,256,512}"
duration="${DURATION_US:-1000}"
active_leaves="${ACTIVE_LEAVES:-32}"
pools="${POOLS:-l2-270B}"
seed="${SEED:-1}"

cd "$root"
build_sim  # NO_BUILD=1 skips the build
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

for pool in $pools; do
  for n in ${qps//,/ }; do
    dir="$tmp/$pool-$n"
    /usr/bin/python3 "$here/make_scenario.py" "$dir" "$n" --active-leaves "$active_leaves" \
      --duration-us "$duration" --seed "$seed" --pool "$pool"
    echo "== pool $pool, $n QPs per server" >&2
    "$tool" run "$dir/scenario.toml" --out "$dir/out" --quiet | tee "$dir/stdout.txt" | head -2 >&2
  done
done

/usr/bin/python3 - "$tmp" "$here" "$qps" "$active_leaves" "$duration" "$pools" <<'PY'
import csv, json, os, re, sys
tmp, here, qps, active_leaves, duration, pools = sys.argv[1:]
pools = pools.split()
active_leaves = int(active_leaves)
# The active servers: those under the leaves make_scenario.py uses.
step = 32 // active_leaves
active = {f"h{l * step * 10 + s}" for l in range(active_leaves) for s in range(10)}
rows = []
for pool in pools:
    for n in (int(q) for q in qps.split(",")):
        d = os.path.join(tmp, f"{pool}-{n}")
        with open(os.path.join(d, "out", "fasr_pool.csv")) as f:
            nics = [r for r in csv.DictReader(f) if r["nic"] in active]
        with open(os.path.join(d, "out", "summary.json")) as f:
            summary = json.load(f)
        text = open(os.path.join(d, "stdout.txt")).read()
        hops = int(re.search(r"(\d+) packet-hops", text).group(1))
        resent = int(re.search(r"NIC retransmissions (\d+)", text).group(1))
        timeouts = int(re.search(r"timeouts (\d+)", text).group(1))
        wall = float(re.search(r"in ([\d.]+) s wall", text).group(1))
        total = lambda key: sum(int(r[key]) for r in nics)
        mean = lambda key: sum(float(r[key]) for r in nics) / len(nics)
        peak = lambda key: max(int(r[key]) for r in nics)
        observed = total("observed_ps")
        episodes = total("fast_recoveries") + total("slow_recoveries")
        p = summary["fasr_pool"]
        rows.append({
            "pool": pool,
            "pool_bytes": p["pool_bytes"],
            "units": p["units"],
            "blocks": p["blocks"],
            "block_bits": p["block_bits"],
            "qps_per_server": n,
            "servers": len(nics),
            "qps": n * len(nics),
            "duration_us": int(duration),
            "mean_bytes": round(mean("mean_bytes"), 2),
            "busiest_mean_bytes": round(max(float(r["mean_bytes"]) for r in nics), 2),
            "peak_bytes": peak("peak_bytes"),
            "mean_units": round(mean("mean_units"), 3),
            "peak_units": peak("peak_units"),
            "mean_blocks": round(mean("mean_blocks"), 3),
            "peak_blocks": peak("peak_blocks"),
            "units_exhausted_fraction": round(total("units_exhausted_ps") / observed, 5),
            "episodes": episodes,
            "fast_fraction": round(total("fast_recoveries") / episodes, 4) if episodes else "",
            "fallbacks": total("fallbacks"),
            "unit_fallbacks": total("unit_fallbacks"),
            "fallbacks_per_episode": round(total("fallbacks") / total("unit_allocations"), 5),
            "drops": summary["drops"]["total"],
            "random_loss_drops": summary["drops"]["by_reason"].get("random_loss", 0),
            "packet_hops": hops,
            "nic_retransmissions": resent,
            "timeouts": timeouts,
            "wall_seconds": wall,
        })
# Keep the rows of the pools not rerun (they may come from another scale: see `servers`).
path = os.path.join(here, "results.csv")
if os.path.exists(path):
    with open(path) as f:
        kept = [r for r in csv.DictReader(f) if r["pool"] not in pools]
    rows = rows + kept
order = {"l2-270B": 0, "270B": 1, "default": 2}
rows.sort(key=lambda r: (order.get(r["pool"], 9), int(r["qps_per_server"])))
fields = list(dict.fromkeys(k for r in rows for k in r))
with open(path, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields, restval="")
    w.writeheader()
    w.writerows(rows)
PY
/usr/bin/python3 "$here/plot.py" "$here"
echo "results in $here/results.csv, pool_usage.png" >&2
