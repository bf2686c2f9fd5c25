#pragma once
// Path choice by ECMP with the known hash (§3.1): a PathOracle says which of the connection's
// paths a packet of (source address, destination address, UDP source port) takes through the
// switches, and Virtuoso picks each path QP's UDP source port so that path i's packets take
// path i. The oracle is the deployment's knowledge of its switches' hash (sim::ecmp_path_oracle
// in the simulator); without one, ports are random and static routes place the paths.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "bifrost/world/address.h"

namespace bifrost::transport::virtuoso {

// The path index a packet takes, or nullopt if it leaves the connection's K paths.
using PathOracle =
    std::function<std::optional<uint32_t>(world::Ipv4 src, world::Ipv4 dst, uint16_t src_port)>;

// For each path i a UDP source port p with oracle(local[i], peer[i], p) == i, tried upwards from
// `start` through the dynamic range 49152 .. 65535 (wrapping). Throws Error if a path has none.
std::vector<uint16_t> choose_source_ports(const PathOracle& oracle,
                                          std::span<const world::Ipv4> local,
                                          std::span<const world::Ipv4> peer, uint16_t start);

}  // namespace bifrost::transport::virtuoso
