# Sourced by scripts/testbed.sh for --clients N: the N -> 1 testbed. N client namespaces
# (bfc<pid>-<i>) and the server namespace (bfb<pid>) hang off a Linux bridge in a namespace of
# its own (bfs<pid>), one veth pair each (MTU 9000). --rate puts a tbf on the bridge's port
# toward the server, so the N clients' traffic meets at one queue, as at a ToR's server port.
# The server's nftables counts the UDP 4791 bytes from each client (counter from_<i>); a
# sampler reads them every --sample-interval seconds while the clients run.
# Uses testbed.sh's variables (id is set here) and its nft_setup / counter functions.

id=$$
ns_b=bfb$id ns_s=bfs$id bridge=br-$id
ns_client() { echo "bfc$id-$1"; }
client_ip() { echo "10.77.0.$((10 + $1))"; }
server_ip() { echo "10.77.0.$((100 + $1))"; }
results_dir=$(mktemp -d)
pids=() sampler=

teardown_clients() {
  for p in "${pids[@]}" $sampler; do kill "$p" 2>/dev/null || true; done
  ip netns del "$ns_b" 2>/dev/null || true
  ip netns del "$ns_s" 2>/dev/null || true
  for i in $(seq 1 "$clients"); do ip netns del "$(ns_client "$i")" 2>/dev/null || true; done
  rm -rf "$results_dir"
}
trap teardown_clients EXIT INT TERM

ip netns add "$ns_s"
ip netns add "$ns_b"
ip -n "$ns_s" link set lo up
ip -n "$ns_s" link add "$bridge" type bridge forward_delay 0 stp_state 0
# plug <ns> <its dev> <bridge port> <address>: a veth pair from ns to the bridge.
plug() {
  ip link add "$2" netns "$1" type veth peer name "$3" netns "$ns_s"
  ip -n "$ns_s" link set "$3" mtu 9000 master "$bridge" up
  ip -n "$1" link set lo up
  ip -n "$1" link set "$2" mtu 9000 up
  ip -n "$1" addr add "$4/24" dev "$2"
}
plug "$ns_b" "b-$id" "s0-$id" 10.77.0.2
for i in $(seq 1 "$clients"); do
  ip netns add "$(ns_client "$i")"
  plug "$(ns_client "$i")" "c$i-$id" "s$i-$id" "$(client_ip "$i")"
  ip -n "$ns_b" addr add "$(server_ip "$i")/24" dev "b-$id"
done
ip -n "$ns_s" link set "$bridge" mtu 9000 up
if [ -n "$rate" ]; then
  tc -n "$ns_s" qdisc add dev "s0-$id" root tbf rate "$rate" burst 256kb latency 50ms
fi

per_client_counters= per_client_rules=
for i in $(seq 1 "$clients"); do
  per_client_counters+="counter from_$i {}"$'\n'
  per_client_rules+="ip saddr $(client_ip "$i") udp dport 4791 counter name from_$i"$'\n'
  nft_setup "$(ns_client "$i")"
done
nft_setup "$ns_b" "$per_client_counters" "$per_client_rules"

# Every interval: time (s since the clients started), client, bytes it delivered so far. One
# nft call reads every client's counter; on a loaded host it takes a while, so the time is the
# midpoint of the call.
sample_counters() {
  local start before listing
  start=$(date +%s.%N)
  echo "time_s,client,bytes"
  while :; do
    before=$(date +%s.%N)
    listing=$(ip netns exec "$ns_b" nft list counters table inet bifrost)
    awk -v a="$before" -v b="$(date +%s.%N)" -v s="$start" \
      '/counter from_/ {sub("from_", "", $2); c = $2}
       c != "" && /packets/ {printf "%.3f,%s,%s\n", (a + b) / 2 - s, c, $4; c = ""}' \
      <<<"$listing"
    sleep "$sample_interval"
  done
}

# run_in <ns> <i> <json> <cmd>: cmd in the background with the pair's environment.
run_in() {
  ip netns exec "$1" env BF_INDEX="$2" BF_A_IP="$(client_ip "$2")" BF_B_IP="$(server_ip "$2")" \
    BF_JSON="$3" sh -c "$4" &
  pids+=($!)
}
if [ -n "$cmd_b" ]; then
  for i in $(seq 1 "$clients"); do run_in "$ns_b" "$i" "$results_dir/server$i.json" "$cmd_b"; done
  sleep "$b_delay"
fi
sample_counters >"$results_dir/samples.csv" &
sampler=$!
if [ -n "$cmd_a" ]; then
  for i in $(seq 1 "$clients"); do
    run_in "$(ns_client "$i")" "$i" "$results_dir/client$i.json" "$cmd_a"
  done
fi
status=0
for p in "${pids[@]}"; do
  wait "$p" || { rc=$?; [ "$status" -ne 0 ] || status=$rc; }
done
pids=()
kill "$sampler" 2>/dev/null || true
wait "$sampler" 2>/dev/null || true
sampler=

if [ -n "$rate" ]; then  # what the bottleneck's queue dropped (for the summary)
  tc -n "$ns_s" -s qdisc show dev "s0-$id" |
    awk '/dropped/ {gsub("[(),]", ""); for (i = 1; i < NF; i++) if ($i == "dropped") print $(i + 1)}' \
      >"$results_dir/bottleneck_drops"
fi
echo "testbed: UDP 4791 into the server: $(counter "$ns_b" datagrams) datagrams," \
  "$(counter "$ns_b" drops) dropped (loss $loss/1000)"
summary=(/usr/bin/python3 "$(dirname "$0")/incast_summary.py" --clients "$clients"
  --dir "$results_dir")
[ -n "$counters" ] && summary+=(--out "$counters")
"${summary[@]}" || { [ "$status" -ne 0 ] || status=1; }
exit "$status"
