#pragma once
// Topology descriptions as a scenario file states them: which shape, how many of each element,
// and the rate and propagation delay of each class of link. Building the network from these is
// the simulator's job; this header only describes and counts.
//
// Host numbering, which workloads refer to:
//  - dumbbell: hosts 0 .. n-1 hang off the left switch, n .. 2n-1 off the right one
//    (n = hosts_per_side); the two switches are joined by the "bottleneck" link.
//  - star: hosts 0 .. n-1 on one switch.
//  - leaf_spine: leaf l holds hosts l*h .. l*h + h-1 (h = hosts_per_leaf); every leaf links to
//    every spine.
//  - fat_tree: ToR t holds hosts t*m .. t*m + m-1 with m = oversubscription * k/2. Two tiers:
//    k ToRs, each with one uplink to each of k/2 spines. Three tiers: k pods of k/2 ToRs and
//    k/2 aggregation switches, (k/2)^2 core switches; ToRs are numbered pod by pod.
//  - parking_lot: hops + 1 switches in a chain joined by "chain" links; switch s holds hosts
//    s*h .. s*h + h-1 (h = hosts_per_switch).
//  - two_dc: two copies of a leaf-spine datacenter, hosts of datacenter 0 first; in each, every
//    spine links to a border switch, and the two border switches are joined by dci_links
//    parallel "dci" links.
//  - multipath: the Virtuoso paper's testbed (Fig. 4): hosts 0 .. n-1 on the left ToR,
//    n .. 2n-1 on the right one (n = hosts_per_side), the ToRs joined by `paths` parallel
//    "path" links, link i at path_rates[i] when given (else path_rate).
//
// Any topology may give each host `host_aliases` extra addresses (Addressing, below), and
// [routing] mode = "source" pins alias i to the i-th member of every ECMP group on the way.
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bifrost/core/rate.h"
#include "bifrost/core/time.h"

namespace bifrost::sim::scenario {

struct LinkSpec {
  Rate rate;
  Time delay;  // one-way propagation delay
  // Extra uniform [0, jitter] delay per frame (net::LinkConfig::jitter).
  Time jitter = Time::zero();
  // Probability that a data frame is lost, independently per frame and direction
  // (net::Channel::set_loss_rate); applied by run_scenario.
  double loss = 0;
  // Host links only: every drop_every-th data frame a host sends is dropped (the N-th, 2N-th,
  // ...; 0: none), as RoGUE's switch ACL dropped packets whose NIC-assigned IP id matched a
  // pattern (section 5.2: "0x*fff" for 1/4K). Its frames of every kind count, ACKs too, as IP
  // ids do; applied by run_scenario to the host-to-switch direction.
  uint64_t drop_every = 0;
  bool operator==(const LinkSpec&) const = default;
};

struct DumbbellTopology {
  uint32_t hosts_per_side = 0;
  LinkSpec host;
  LinkSpec bottleneck;
  bool operator==(const DumbbellTopology&) const = default;
};

struct StarTopology {
  uint32_t hosts = 0;
  LinkSpec host;
  bool operator==(const StarTopology&) const = default;
};

struct LeafSpineTopology {
  uint32_t leaves = 0;
  uint32_t spines = 0;
  uint32_t hosts_per_leaf = 0;
  LinkSpec host;
  LinkSpec fabric;  // leaf-spine links
  bool operator==(const LeafSpineTopology&) const = default;
};

struct FatTreeTopology {
  uint32_t k = 0;  // switch radix, even
  uint32_t tiers = 3;
  // Hosts per ToR are oversubscription * k/2 while ToR uplinks stay k/2.
  uint32_t oversubscription = 1;
  LinkSpec host;
  LinkSpec fabric;  // every switch-to-switch link
  bool operator==(const FatTreeTopology&) const = default;
};

struct ParkingLotTopology {
  uint32_t hops = 0;  // chain links; there are hops + 1 switches
  uint32_t hosts_per_switch = 1;
  LinkSpec host;
  LinkSpec chain;
  bool operator==(const ParkingLotTopology&) const = default;
};

struct TwoDcTopology {
  LeafSpineTopology dc;  // each datacenter; fabric also joins spines to the border switch
  LinkSpec dci;          // one long-haul link between the border switches
  uint32_t dci_links = 1;
  bool operator==(const TwoDcTopology&) const = default;
};

struct MultipathTopology {
  uint32_t hosts_per_side = 1;
  uint32_t paths = 0;
  LinkSpec host;
  LinkSpec path;                 // every path link's delay, and its rate unless path_rates
  std::vector<Rate> path_rates;  // empty, or one rate per path link
  bool operator==(const MultipathTopology&) const = default;
};

using Topology = std::variant<DumbbellTopology, StarTopology, LeafSpineTopology, FatTreeTopology,
                              ParkingLotTopology, TwoDcTopology, MultipathTopology>;

// How switches choose among equal-cost next hops ([routing] mode): by the 5-tuple hash, or by
// static (source address, destination address) routes that pin alias i <-> peer alias i to the
// i-th member (counting from 1, modulo the group's size) of every equal-cost group.
enum class RoutingMode : uint8_t { ecmp, source };

// The hosts' addresses and how they are routed: [topology] host_aliases and [routing].
struct Addressing {
  uint32_t host_aliases = 0;  // extra addresses per host: each host has host_aliases + 1
  RoutingMode routing = RoutingMode::ecmp;
  bool operator==(const Addressing&) const = default;
};
inline constexpr uint32_t kMaxHostAliases = 15;  // address plan: sim::host_address

// "dumbbell", "star", "leaf_spine", "fat_tree", "parking_lot", "two_dc", "multipath".
std::string_view kind_name(const Topology& topology);
uint64_t host_count(const Topology& topology);

// Link classes a workload's load may refer to: always "host" first, then the topology's own
// ("bottleneck"; "fabric"; "chain"; "fabric" and "dci"; "path").
std::vector<std::string_view> link_classes(const Topology& topology);
// The rate of one link of class `name`; throws Error listing the classes if there is no such.
Rate link_class_rate(const Topology& topology, std::string_view name);
// The rate, delay and jitter of class `name`; throws Error as link_class_rate does.
const LinkSpec& link_class_spec(const Topology& topology, std::string_view name);
// The host link, the same for every host in every topology.
const LinkSpec& host_link(const Topology& topology);

}  // namespace bifrost::sim::scenario
