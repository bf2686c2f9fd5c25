#!/usr/bin/env bash
# System test: bifrost-perf over RoGUE (--transport rogue-rc | rogue-uc), real processes.
#   perf_rogue.sh <bifrost-perf> loopback
#       two processes on loopback addresses: write_bw (also 1 MiB verbs, cut into segments),
#       read_bw, send_bw and the latency tests, all with --verify; invalid combinations refused;
#       write0_lat over plain RC (RoGUE's RTT oracle)
#   perf_rogue.sh <bifrost-perf> rate <testbed.sh> <Mbit/s>
#       rogue-rc write_bw through a tbf bottleneck: goodput at least 85% of its rate
#   perf_rogue.sh <bifrost-perf> loss <testbed.sh>
#       rogue-rc write_bw --verify with 1% random loss: every message verified, no verb failed
#       (no retry_exceeded reaches the application), whatever the shadow QPs had to do
# Every run asserts: each verb completed at the sender, each message verified exactly once at
# the side that can check it, nothing corrupt or missing, RoGUE's counters consistent (one
# batch per signalled verb here, never more signals than segments, no failed verb).
set -euo pipefail
perf=$1 mode=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# check <client.json> <server.json> <name> <verbs> [min goodput Gb/s]
check() {
  python3 - "$@" <<'PY'
import json, sys
client, server = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
name, n = sys.argv[3], int(sys.argv[4]) * client["qps"]  # -n counts per QP
floor = float(sys.argv[5]) if len(sys.argv) > 5 else 0.0
def ok(cond, what):
    print(("ok   " if cond else "FAIL ") + f"{name}: {what}")
    if not cond: sys.exit(1)
row = client["results"][0]
ok(row["iterations"] == n, f"{row['iterations']} of {n} verbs completed at the sender")
if client["verify"] and client["test"].endswith("_bw"):
    checker = client if client["test"] == "read_bw" else server
    ok(checker["verified"] == n, f"{checker['verified']} of {n} verified at the {checker['role']}")
ok(client["corrupt"] == 0 and server["corrupt"] == 0, "nothing corrupt")
ok(client["missing"] == 0, "nothing missing")
r = client["counters"]["rogue"]
ok(r["verbs_failed"] == 0, "no verb failed")
ok(r["verbs_completed"] >= n, f"{r['verbs_completed']} verbs completed by RoGUE")
ok(0 < r["signals"] <= r["segments_posted"],
   f"{r['signals']} signals for {r['segments_posted']} segments, {r['batches']} batches")
ok(r["rtt_samples"] + r["held_off_samples"] + r["discarded_samples"] > 0,
   f"{r['rtt_samples']} RTT samples reached the CC, {r['held_off_samples']} held off")
if floor > 0:
    gbps = row["bw_avg_Gbps"]
    ok(gbps >= floor, f"goodput {gbps:.3f} Gb/s >= {floor:.3f} Gb/s")
print(f"     {name}: shadow switches {r['shadow_switches']}, resyncs {r['resyncs']}, "
      f"lost echoes {r['lost_echoes']}, retransmissions {client['counters']['retransmissions']}")
PY
}

# loopback_run <name> <verbs> <flags...>: server and client on loopback, then check.
loopback_run() {
  local name=$1 n=$2
  shift 2
  local ip="127.$((60 + $$ % 100)).$(($$ / 100 % 250)).3" port=$((20000 + $$ % 20000))
  "$perf" "$@" --verify -B "$ip" -p "$port" --out_json "$dir/$name.server.json" \
    >"$dir/$name.server" 2>&1 &
  local pid=$!
  sleep 0.3
  if ! "$perf" "$@" --verify "$ip" -p "$port" -n "$n" --out_json "$dir/$name.client.json" \
    >"$dir/$name.client" 2>&1; then
    cat "$dir/$name.client" "$dir/$name.server"
    echo "FAIL $name exited with an error"
    exit 1
  fi
  wait "$pid" || { cat "$dir/$name.server"; echo "FAIL $name: the server failed"; exit 1; }
  check "$dir/$name.client.json" "$dir/$name.server.json" "$name" "$n"
}

# refused <what the error says> <flags...>
refused() {
  local expect=$1
  shift
  if "$perf" "$@" 127.0.0.1 >"$dir/refused.txt" 2>&1; then
    echo "FAIL accepted: $*"
    exit 1
  fi
  grep -q "$expect" "$dir/refused.txt" || { cat "$dir/refused.txt"; echo "FAIL $*"; exit 1; }
  echo "ok   refused: $* ($expect)"
}

# testbed_run <testbed flags> -- <name> <verbs> <min Gb/s> <flags...>
testbed_run() {
  local testbed=$1 tb_flags=$2 name=$3 n=$4 floor=$5
  shift 5
  [ "$(id -u)" -eq 0 ] || { echo "needs root for network namespaces: skipped"; exit 77; }
  # shellcheck disable=SC2086
  "$testbed" $tb_flags \
    --b "$perf $* --timeout 20 -B \$BF_B_IP --out_json $dir/$name.server.json > $dir/$name.server 2>&1" \
    --a "$perf $* --timeout 20 \$BF_B_IP -n $n --out_json $dir/$name.client.json > $dir/$name.client 2>&1" \
    || { cat "$dir/$name".*; exit 1; }
  grep -A1 "#bytes" "$dir/$name.client"
  check "$dir/$name.client.json" "$dir/$name.server.json" "$name" "$n" "$floor"
}

# write0_lat (plain RC, RoGUE's Table 1 oracle): n zero-byte WRITEs, p10 <= p50 <= p90.
write0_run() {
  local ip="127.$((60 + $$ % 100)).$(($$ / 100 % 250)).4" port=$((20001 + $$ % 20000))
  "$perf" write0_lat -B "$ip" -p "$port" >"$dir/write0.server" 2>&1 &
  local pid=$!
  sleep 0.3
  "$perf" write0_lat "$ip" -p "$port" -n 50 --out_json "$dir/write0.json" >"$dir/write0.client" 2>&1 ||
    { cat "$dir"/write0.*; echo "FAIL write0_lat"; exit 1; }
  wait "$pid" || { cat "$dir/write0.server"; echo "FAIL write0_lat: the server failed"; exit 1; }
  python3 - "$dir/write0.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
ok = r["iterations"] == 50 and r["bytes"] == 0 and 0 < r["t_p10_us"] <= r["t_typical_us"] <= r["t_p90_us"]
print(("ok   " if ok else "FAIL ") + f"write0_lat: {r['iterations']} WRITE(0)s, p10/p50/p90 "
      f"{r['t_p10_us']:.1f}/{r['t_typical_us']:.1f}/{r['t_p90_us']:.1f} us")
sys.exit(0 if ok else 1)
PY
}

case "$mode" in
  loopback)
    write0_run
    refused "needs --transport rc" write0_lat --transport rogue-rc
    refused "contradict each other" write0_lat --busy_poll -e
    loopback_run rc_write 2000 write_bw --transport rogue-rc -q 2
    loopback_run rc_write_1mib 64 write_bw --transport rogue-rc -s 1048576 -t 8
    loopback_run rc_read 1000 read_bw --transport rogue-rc
    loopback_run rc_send 2000 send_bw --transport rogue-rc -s 4096
    loopback_run uc_write 2000 write_bw --transport rogue-uc
    loopback_run rc_read_lat 200 read_lat --transport rogue-rc -s 4096
    loopback_run rc_read_lat_events 200 read_lat --transport rogue-rc -s 4096 -e
    loopback_run uc_write_lat 200 write_lat --transport rogue-uc -s 64
    refused "UC has no RDMA READ" read_bw --transport rogue-uc
    refused "the transport names the QP type" write_bw --transport rogue-rc -c UC
    refused "must land whole" send_bw --transport rogue-rc -s 131072
    ;;
  rate)
    testbed=$3 mbit=$4
    floor=$(python3 -c "print(0.85 * $mbit / 1000)")
    testbed_run "$testbed" "--rate ${mbit}mbit" rate "$((mbit * 3))" "$floor" \
      write_bw --transport rogue-rc -s 65536 --report_gbits
    ;;
  loss)
    testbed=$3
    testbed_run "$testbed" "--loss-permille 10" loss 2000 0 \
      write_bw --transport rogue-rc -s 65536 --verify
    ;;
  *)
    echo "usage: perf_rogue.sh <bifrost-perf> loopback | rate <testbed.sh> <Mbit/s> | loss <testbed.sh>"
    exit 2
    ;;
esac
