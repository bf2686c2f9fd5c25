#!/usr/bin/env bash
# RoGUE in the real runtime (issue 24, "real rogue-incast"): 3 clients -> 1 server on the N -> 1
# namespace testbed (scripts/testbed.sh --clients 3), a tbf of RATE Mbit/s on the bridge's port
# toward the server, each client a bifrost-perf write_bw of 64 KiB verbs for SECONDS_PER_RUN
# seconds with --verify, against its own server process. Schemes: RoGUE over RC, RoGUE over UC,
# plain RC (perftest's 128 verbs in flight, no congestion control: RoCE without PFC), and plain
# RC with 4 verbs in flight (a window that fits the bottleneck's queue: a sensitivity row).
# Over UC a message with a lost packet never arrives (UC retransmits nothing): its goodput counts
# the messages the server verified, and "clean" there means nothing corrupt, with the missing
# ones counted. Writes results.csv (one row per run), intervals.csv (each client's rate per second at the
# server's counters) and incast.png here, and prints the issue's checks per scheme: Jain >= 0.95
# over the run, aggregate >= 85% of the bottleneck, --verify clean.
#
#   sudo experiments/rogue-incast-real/run.sh                 # about 3 minutes
#   SCHEMES="rogue-rc" REPS=1 sudo experiments/rogue-incast-real/run.sh
#   RATE=800 SCHEMES="rogue-rc rogue-uc" REPS=2 OUT_PREFIX=experiments/rogue-incast-real/rate800_ \
#     sudo experiments/rogue-incast-real/run.sh          # the sensitivity row in the README
set -euo pipefail
source "$(dirname "$0")/../common.sh"
[ "$(id -u)" -eq 0 ] || { echo "needs root (network namespaces)" >&2; exit 77; }
schemes="${SCHEMES:-rogue-rc rogue-uc rc rc-t4}"
reps="${REPS:-3}"
duration="${SECONDS_PER_RUN:-5}"
rate="${RATE:-400}"
clients="${CLIENTS:-3}"

cd "$root"
CMAKE_BUILD_PARALLEL_LEVEL=1 build_tools bifrost-perf
perf="$build/tools/bifrost-perf"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# OUT_PREFIX: write <prefix>results.csv, intervals.csv and incast.png elsewhere (sensitivity runs).
prefix="${OUT_PREFIX:-$here/}"
out="${prefix}results.csv" intervals="${prefix}intervals.csv"
echo "scheme,rep,rate_mbit,clients,finished,aggregate_gbps,of_bottleneck,jain,jain_wire,worst_interval_jain,goodputs_gbps,messages,missing,corrupt,retransmissions,bottleneck_drops,verify_clean" >"$out"
echo "scheme,rep,t_s,client,gbps" >"$intervals"

flags_of() {
  case "$1" in
    rogue-rc | rogue-uc) echo "--transport $1" ;;
    rc) echo "--transport rc" ;;
    rc-t4) echo "--transport rc -t 4" ;;
  esac
}

for scheme in $schemes; do
  for rep in $(seq 1 "$reps"); do
    flags="write_bw $(flags_of "$scheme") -s 65536 --verify --report_gbits --timeout 20"
    rm -f "$tmp"/*
    scripts/testbed.sh --clients "$clients" --rate "${rate}mbit" --counters "$tmp/summary.json" \
      --b "$perf $flags -B \$BF_B_IP > $tmp/server\$BF_INDEX.txt 2>&1" \
      --a "$perf $flags \$BF_B_IP -D $duration --out_json \$BF_JSON > $tmp/client\$BF_INDEX.txt 2>&1" \
      >"$tmp/testbed.txt" || echo "$scheme rep $rep: a client or server failed (see below)"
    grep -h "error" "$tmp"/client*.txt || true
    /usr/bin/python3 - "$tmp/summary.json" "$scheme" "$rep" "$rate" "$out" "$intervals" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
scheme, rep, rate, out, intervals = sys.argv[2], sys.argv[3], float(sys.argv[4]), *sys.argv[5:]
per = s["per_client"]
done = [e for e in per if "goodput_gbps" in e]
uc = scheme.endswith("-uc")
# Goodput counts the messages the server received intact: over UC a message with a lost packet
# completes at the sender but never arrives (UC retransmits nothing), so the sender's rate is
# scaled by verified / completed. A failed client (no JSON) counts as zero: RoCE without PFC's
# failed connection.
def goodput(e):
    if "goodput_gbps" not in e:
        return 0.0
    return e["goodput_gbps"] * (e["verified"] / e["iterations"] if uc else 1.0)
good = [goodput(e) for e in per]
agg = sum(good)
jain = sum(good) ** 2 / (len(good) * sum(g * g for g in good)) if agg > 0 else 0.0
corrupt = sum(e["corrupt"] for e in done)
missing = sum(e["missing"] for e in done)
messages = sum(e["iterations"] for e in done)
retransmissions = sum(e["retransmissions"] for e in done)  # the clients' NICs' packets sent again
# Clean: nothing corrupt, every client finished, and (RC) every message verified at the server.
clean = len(done) == len(per) and corrupt == 0 and (
    uc or all(e["missing"] == 0 and e["verified"] == e["iterations"] for e in done))
worst = min((i["jain"] for i in s.get("intervals", [])), default=float("nan"))
with open(out, "a") as f:
    f.write(f"{scheme},{rep},{rate:g},{len(per)},{len(done)},{agg:.4f},{agg / (rate / 1000):.4f},"
            f"{jain:.4f},{s.get('jain_wire', float('nan')):.4f},{worst:.4f},"
            f"{' '.join(f'{g:.4f}' for g in good)},{messages},{missing},{corrupt},"
            f"{retransmissions},{s.get('bottleneck_drops', '')},{int(clean)}\n")
with open(intervals, "a") as f:
    for i in s.get("intervals", []):
        for c, g in enumerate(i["gbps"], 1):
            f.write(f"{scheme},{rep},{i['t']:.3f},{c},{g:.4f}\n")
print(f"{scheme} rep {rep}: {len(done)}/{len(per)} clients finished, aggregate {agg:.3f} Gb/s "
      f"({agg / (rate / 1000):.0%} of {rate:g} Mbit/s), Jain {jain:.4f}, verify "
      f"{'clean' if clean else 'NOT clean'} ({messages} messages, {missing} missing, "
      f"{corrupt} corrupt), {retransmissions} packets retransmitted, "
      f"{s.get('bottleneck_drops', '?')} dropped at the bottleneck")
PY
  done
done

/usr/bin/python3 - "$out" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for scheme in dict.fromkeys(r["scheme"] for r in rows):
    rs = [r for r in rows if r["scheme"] == scheme]
    jain = min(float(r["jain"]) for r in rs)
    share = min(float(r["of_bottleneck"]) for r in rs)
    clean = all(r["verify_clean"] == "1" for r in rs)
    ok = jain >= 0.95 and share >= 0.85 and clean
    print(f"{scheme:9}: worst Jain {jain:.4f} (>= 0.95), worst aggregate {share:.0%} of the "
          f"bottleneck (>= 85%), verify {'clean' if clean else 'NOT clean'} in {len(rs)} runs: "
          f"{'PASS' if ok else 'FAIL'}")
PY
/usr/bin/python3 "$here/plot.py" "$out" "$intervals" "${prefix}incast.png"
