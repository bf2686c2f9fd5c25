#!/usr/bin/env bash
# Goodput of one RC QP under random loss, per loss-recovery engine (see README.md).
# Builds bifrost-rnic-loss in the Release build (build/release), runs the sweeps and writes
# results.json, results.csv and goodput_vs_loss.png next to this script.
#
#   experiments/loss-recovery-single-qp/run.sh            # full run (a few minutes)
#   DURATION_US=20000 experiments/loss-recovery-single-qp/run.sh   # quick look
set -euo pipefail
source "$(dirname "$0")/../common.sh"
duration="${DURATION_US:-200000}"      # simulated time per point, us
long_duration="${LONG_DURATION_US:-2000000}"  # for QP timeouts of 16.8 ms and more
losses="0.0001,0.001,0.005,0.01,0.02,0.05"
seed="${SEED:-1}"

cd "$root"
build_tools bifrost-rnic-loss
tool="$build/tools/bifrost-rnic-loss"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# GBN's QP timeout in the main rows: 8 (1.05 ms), explicitly since the tool's default became 14
# (67 ms, issue 20); the sensitivity below sweeps it.
echo "== goodput vs loss, no receive-pipeline model (gbn, irn, srnic)" >&2
"$tool" --engine all --loss "$losses" --duration-us "$duration" --seed "$seed" --gbn-timeout 8 \
  --json "$tmp/main.json" --csv "$tmp/main.csv"
echo "== goodput vs loss with the receive pipeline (SRNIC's bitmap stalls cost only here)" >&2
"$tool" --engine all --loss "$losses" --duration-us "$duration" --seed "$seed" --pipeline \
  --gbn-timeout 8 --json "$tmp/pipeline.json" --csv "$tmp/pipeline.csv"

echo "== GBN sensitivity at 1% loss: QP timeout" >&2
for t in 4 6 8 10 12 14; do
  d="$duration"; [ "$t" -ge 12 ] && d="$long_duration"
  "$tool" -q --engine gbn --loss 0.01 --gbn-timeout "$t" --duration-us "$d" --seed "$seed" \
    --json "$tmp/gbn_t$t.json" --csv "$tmp/gbn_t$t.csv"
done
echo "== GBN sensitivity at 1% loss: minimum RTO under QP timeout 4 (65.5 us)" >&2
for m in 100 300 1000 3000; do
  "$tool" -q --engine gbn --loss 0.01 --gbn-timeout 4 --gbn-min-rto "$m" --duration-us "$duration" \
    --seed "$seed" --json "$tmp/gbn_m$m.json" --csv "$tmp/gbn_m$m.csv"
done
echo "== IRN sensitivity at 1% loss: RTO_high (RTO_low = min(100, RTO_high))" >&2
for r in 320 100 40 20; do
  low=$(( r < 100 ? r : 100 ))
  "$tool" -q --engine irn --loss 0.01 --rto-low-us "$low" --rto-high-us "$r" \
    --duration-us "$duration" --seed "$seed" --json "$tmp/irn_r$r.json" --csv "$tmp/irn_r$r.csv"
done
echo "== IRN sensitivity at 1% loss: in-flight cap (bdp_packets)" >&2
for b in 128 256 1024; do
  "$tool" -q --engine irn --loss 0.01 --bdp-packets "$b" --duration-us "$duration" \
    --seed "$seed" --json "$tmp/irn_b$b.json" --csv "$tmp/irn_b$b.csv"
done

/usr/bin/python3 - "$tmp" "$here" <<'PY'
import csv, glob, json, os, sys
tmp, here = sys.argv[1], sys.argv[2]
def load(name):
    with open(os.path.join(tmp, name + ".json")) as f:
        return json.load(f)
series = {"main": ["main"], "pipeline": ["pipeline"],
          "gbn_timeout": [f"gbn_t{t}" for t in (4, 6, 8, 10, 12, 14)],
          "gbn_min_rto": [f"gbn_m{m}" for m in (100, 300, 1000, 3000)],
          "irn_rto_high": [f"irn_r{r}" for r in (320, 100, 40, 20)],
          "irn_bdp_packets": [f"irn_b{b}" for b in (128, 256, 1024)]}
out = {"tool": "bifrost-rnic-loss", "series": {}}
rows = []
for name, runs in series.items():
    out["series"][name] = []
    for run in runs:
        doc = load(run)
        for p in doc["points"]:
            out["series"][name].append({"scenario": doc["scenario"], **p})
        with open(os.path.join(tmp, run + ".csv")) as f:
            for r in csv.DictReader(f):
                r = {"series": name, **r}
                r["bdp_packets"] = doc["scenario"]["bdp_packets"]
                r["rto_high_us"] = doc["scenario"]["rto_high_us"]
                rows.append(r)
with open(os.path.join(here, "results.json"), "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
with open(os.path.join(here, "results.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)
PY
/usr/bin/python3 "$here/plot.py" "$here"
echo "results in $here/results.json, results.csv, goodput_vs_loss.png" >&2
