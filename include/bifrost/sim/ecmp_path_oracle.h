#pragma once
// Virtuoso's "ECMP with known hash" in the simulator: the path a packet takes is read off the
// switches themselves (each one's routing table and ECMP seed, as it will forward), and the
// path's index is its place among Network::shortest_paths(src host, dst host, paths), the
// paths the ideal FCT counts too (on `multipath`: path link i is path i).
#include <cstdint>

#include "bifrost/sim/network.h"
#include "bifrost/transport/virtuoso/path_oracle.h"

namespace bifrost::sim {

// The host whose address (or alias) is `ip`, if any (sim::host_address's inverse).
std::optional<uint32_t> host_of(const Network& network, world::Ipv4 ip);

// The links a UDP packet (src, dst, src_port) -> RoCE port crosses from its host to dst's host,
// following each switch's forwarding decision. Throws Error for an unknown address or a switch
// without a route.
std::vector<const Network::LinkInfo*> forwarded_path(Network& network, world::Ipv4 src,
                                                     world::Ipv4 dst, uint16_t src_port);

// The oracle for a connection of `paths` paths; `network` must outlive it.
transport::virtuoso::PathOracle ecmp_path_oracle(Network& network, uint32_t paths);

}  // namespace bifrost::sim
