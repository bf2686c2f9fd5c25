#!/usr/bin/env bash
# Two network namespaces joined by a veth pair, for running bifrost over a real (kernel) network
# with controlled impairments. Side a is 10.77.0.1, side b is 10.77.0.2 (MTU 9000, so RoCE MTU
# 4096 datagrams fit).
#
#   scripts/testbed.sh [options] --b "server command" --a "client command"
#
#   --loss-permille N   drop N/1000 of the UDP 4791 datagrams entering each side, at random
#                       (nftables numgen); the drop and datagram counters are printed at the end
#   --rate RATE         limit each direction with tbf (e.g. 1gbit)
#   --aliases K         give each side K extra addresses 10.77.i.{1,2} (i = 1..K), each with a
#                       policy route of its own (source-address routing for multi-path)
#   --paths K           K more veth pairs, one per path: alias i (10.77.i.{1,2}, i = 1..K) on
#                       veth pair i, with a policy route from it through that veth, so that
#                       alias i <-> peer alias i really takes its own link (Virtuoso's paths)
#   --path-rate RATE    limit each path veth, each direction, with its own tbf (e.g. 500mbit)
#   --counters FILE     also write the counters as JSON to FILE (with --paths: the bytes each
#                       path veth sent, per side)
#   --b CMD / --a CMD   run CMD inside namespace b (started first, in the background) / a; both
#                       see BF_A_IP and BF_B_IP. The script waits for both and fails if either does.
#   --b-delay SECONDS   wait this long after starting b before starting a (default 0.3)
#   --clients N         N -> 1 instead: N client namespaces and the server namespace on a Linux
#                       bridge (in a namespace of its own); --rate then limits only the bridge's
#                       port toward the server (tbf), the incast bottleneck. Client i
#                       (i = 1..N) is 10.77.0.(10+i); the server namespace has one address per
#                       client, 10.77.0.(100+i), because a soft NIC owns UDP 4791 of its address:
#                       --b runs N times there (one server process per client) and --a once in
#                       each client namespace, all at the same time, each with BF_INDEX=i,
#                       BF_A_IP / BF_B_IP of its pair and BF_JSON (a file for its JSON results).
#                       Afterwards scripts/incast_summary.py prints per-client goodput, the
#                       aggregate and Jain's index from the client commands' bifrost-perf JSON
#                       (written to $BF_JSON), and the bytes each client delivered per interval
#                       as the server's nftables counted them (--counters: written to FILE)
#   --sample-interval S with --clients: read the per-client byte counters every S seconds
#                       (default 0.5)
#
# Needs root (namespaces, nftables, tc). Always tears everything down, also on errors/Ctrl-C.
set -euo pipefail

loss=0 rate= aliases=0 paths=0 path_rate= counters= cmd_a= cmd_b= b_delay=0.3 clients=0
sample_interval=0.5
while [ $# -gt 0 ]; do
  case "$1" in
    --loss-permille) loss=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --aliases) aliases=$2; shift 2 ;;
    --paths) paths=$2; shift 2 ;;
    --path-rate) path_rate=$2; shift 2 ;;
    --counters) counters=$2; shift 2 ;;
    --a) cmd_a=$2; shift 2 ;;
    --b) cmd_b=$2; shift 2 ;;
    --b-delay) b_delay=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    --sample-interval) sample_interval=$2; shift 2 ;;
    -h|--help) sed -n '2,37p' "$0"; exit 0 ;;
    *) echo "testbed: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if [ "$(id -u)" -ne 0 ]; then
  echo "testbed: needs root (network namespaces, nftables, tc); run it with sudo" >&2
  exit 77
fi
for tool in ip nft; do
  command -v "$tool" >/dev/null || { echo "testbed: '$tool' is missing (apt-get install iproute2 nftables)" >&2; exit 77; }
done
if ! [[ "$loss" =~ ^[0-9]+$ ]] || [ "$loss" -gt 1000 ]; then
  echo "testbed: --loss-permille must be 0..1000, not '$loss'" >&2; exit 2
fi
for n in "$aliases" "$paths"; do
  if ! [[ "$n" =~ ^[0-9]+$ ]] || [ "$n" -gt 64 ]; then
    echo "testbed: --aliases and --paths must be 0..64, not '$n'" >&2; exit 2
  fi
done
if [ "$aliases" -gt 0 ] && [ "$paths" -gt 0 ]; then
  echo "testbed: --aliases (all on one veth) and --paths (a veth each) exclude each other" >&2; exit 2
fi
if ! [[ "$clients" =~ ^[0-9]+$ ]] || [ "$clients" -gt 64 ]; then
  echo "testbed: --clients must be 0..64, not '$clients'" >&2; exit 2
fi
if [ "$clients" -gt 0 ] && [ $((aliases + paths)) -gt 0 ]; then
  echo "testbed: --clients (N -> 1 on a bridge) excludes --aliases and --paths" >&2; exit 2
fi
if [ -n "$path_rate" ] && [ "$paths" -eq 0 ]; then
  echo "testbed: --path-rate needs --paths" >&2; exit 2
fi

# Counts the UDP 4791 datagrams entering namespace $1 and drops --loss-permille of them at
# random (named counters datagrams and drops); $2: more counters and rules, counted before the
# drop (the N -> 1 server's per-client counters).
nft_setup() {  # ns [counters] [rules]
  ip netns exec "$1" nft -f - <<NFT
table inet bifrost {
  counter datagrams {}
  counter drops {}
  ${2:-}
  chain input {
    type filter hook input priority 0; policy accept;
    udp dport 4791 counter name datagrams
    ${3:-}
    udp dport 4791 numgen random mod 1000 < $loss counter name drops drop
  }
}
NFT
}
counter() {  # ns name
  ip netns exec "$1" nft list counter inet bifrost "$2" | awk '/packets/ {print $2; exit}'
}

if [ "$clients" -gt 0 ]; then
  # shellcheck source=scripts/testbed_clients.sh
  source "$(dirname "$0")/testbed_clients.sh"
  exit
fi

# Names unique per run so parallel tests do not collide.
id=$$
ns_a=bfa$id ns_b=bfb$id veth_a=bfa$id veth_b=bfb$id
export BF_A_IP=10.77.0.1 BF_B_IP=10.77.0.2
pid_b=

teardown() {
  [ -n "$pid_b" ] && kill "$pid_b" 2>/dev/null || true
  ip netns del "$ns_a" 2>/dev/null || true
  ip netns del "$ns_b" 2>/dev/null || true
}
trap teardown EXIT INT TERM

ip netns add "$ns_a"
ip netns add "$ns_b"
ip link add "$veth_a" netns "$ns_a" type veth peer name "$veth_b" netns "$ns_b"
for i in $(seq 1 "$paths"); do
  ip link add "${veth_a}p$i" netns "$ns_a" type veth peer name "${veth_b}p$i" netns "$ns_b"
done
setup_side() {  # ns dev ip side_octet
  local ns=$1 dev=$2 addr=$3 host=$4
  ip -n "$ns" link set lo up
  ip -n "$ns" link set "$dev" mtu 9000 up
  ip -n "$ns" addr add "$addr/24" dev "$dev"
  for i in $(seq 1 "$aliases"); do
    ip -n "$ns" addr add "10.77.$i.$host/24" dev "$dev"
    ip -n "$ns" route add "10.77.$i.0/24" dev "$dev" src "10.77.$i.$host" table $((100 + i))
    ip -n "$ns" rule add from "10.77.$i.$host" table $((100 + i))
  done
  for i in $(seq 1 "$paths"); do
    ip -n "$ns" link set "${dev}p$i" mtu 9000 up
    ip -n "$ns" addr add "10.77.$i.$host/24" dev "${dev}p$i"
    ip -n "$ns" route add "10.77.$i.0/24" dev "${dev}p$i" src "10.77.$i.$host" table $((100 + i))
    ip -n "$ns" rule add from "10.77.$i.$host" table $((100 + i))
    if [ -n "$path_rate" ]; then
      tc -n "$ns" qdisc add dev "${dev}p$i" root tbf rate "$path_rate" burst 256kb latency 50ms
    fi
  done
  if [ -n "$rate" ]; then
    tc -n "$ns" qdisc add dev "$dev" root tbf rate "$rate" burst 256kb latency 50ms
  fi
  nft_setup "$ns"
}
setup_side "$ns_a" "$veth_a" "$BF_A_IP" 1
setup_side "$ns_b" "$veth_b" "$BF_B_IP" 2

# Each path's neighbour entry, set now, so that the first packets of a path (a Virtuoso probe)
# do not wait in the kernel's ARP queue.
mac() { ip netns exec "$1" cat "/sys/class/net/$2/address"; }
for i in $(seq 1 "$paths"); do
  ip -n "$ns_a" neigh replace "10.77.$i.2" lladdr "$(mac "$ns_b" "${veth_b}p$i")" dev "${veth_a}p$i" nud permanent
  ip -n "$ns_b" neigh replace "10.77.$i.1" lladdr "$(mac "$ns_a" "${veth_a}p$i")" dev "${veth_b}p$i" nud permanent
done

status=0
if [ -n "$cmd_b" ]; then
  ip netns exec "$ns_b" sh -c "$cmd_b" &
  pid_b=$!
  sleep "$b_delay"
fi
if [ -n "$cmd_a" ]; then
  ip netns exec "$ns_a" sh -c "$cmd_a" || status=$?
fi
if [ -n "$pid_b" ]; then
  # a's status first; b's if a succeeded (kept before the test, which resets $?)
  wait "$pid_b" || { b_status=$?; [ "$status" -ne 0 ] || status=$b_status; }
  pid_b=
fi

# Bytes each path veth sent (a: a -> b, b: b -> a), as the kernel counted them.
path_bytes() {  # ns dev
  local out="" i
  for i in $(seq 1 "$paths"); do
    out+="${out:+, }$(ip netns exec "$1" cat "/sys/class/net/${2}p$i/statistics/tx_bytes")"
  done
  echo "$out"
}
if [ "$paths" -gt 0 ]; then
  bytes_a=$(path_bytes "$ns_a" "$veth_a") bytes_b=$(path_bytes "$ns_b" "$veth_b")
  echo "testbed: bytes sent on path veths 1..$paths: a -> b [$bytes_a], b -> a [$bytes_b]"
fi
seen_a=$(counter "$ns_a" datagrams) drops_a=$(counter "$ns_a" drops)
seen_b=$(counter "$ns_b" datagrams) drops_b=$(counter "$ns_b" drops)
echo "testbed: UDP 4791 into a: $seen_a datagrams, $drops_a dropped; into b: $seen_b datagrams, $drops_b dropped (loss $loss/1000)"
if [ -n "$counters" ]; then
  printf '{"a": {"datagrams": %s, "drops": %s, "path_tx_bytes": [%s]}, "b": {"datagrams": %s, "drops": %s, "path_tx_bytes": [%s]}, "loss_permille": %s}\n' \
    "$seen_a" "$drops_a" "${bytes_a:-}" "$seen_b" "$drops_b" "${bytes_b:-}" "$loss" >"$counters"
fi
exit "$status"
