// [routing] mode = "source": every switch with a choice of equal-cost next hops towards a host
// gets a static route per (source alias, destination alias) pair, pinning alias i <-> peer
// alias i to member i - 1 (modulo the group's size) of that group. On the multipath topology
// the group at each ToR is the parallel path links in order, so alias i crosses path link i - 1
// both ways. Host addresses without an alias (alias 0) stay on ECMP.
#include <fmt/format.h>

#include "bifrost/core/error.h"
#include "bifrost/sim/network.h"

namespace bifrost::sim {

namespace {
// Each static route is a hash entry per switch; this keeps a typo from asking for gigabytes.
constexpr uint64_t kMaxStaticRoutes = uint64_t{1} << 22;
}  // namespace

std::vector<uint32_t> Network::ports_towards(uint32_t node, uint32_t dst) const {
  return switches_.at(node - graph_.hosts)->routes().ports_for(host_address(dst));
}

void Network::install_source_routes() {
  const uint32_t aliases = addressing_.host_aliases;
  const uint64_t hosts = graph_.hosts;
  const uint64_t needed = uint64_t{switches_.size()} * hosts * (hosts - 1) * aliases;
  if (needed > kMaxStaticRoutes) {
    throw Error(
        "routing: source mode would install up to {} static routes ({} switches, {} hosts, {} "
        "aliases); at most {}: use fewer hosts or aliases, or mode = \"ecmp\"",
        needed, switches_.size(), hosts, aliases, kMaxStaticRoutes);
  }
  for (uint32_t n = graph_.hosts; n < graph_.nodes.size(); ++n) {
    net::RoutingTable& routes = switch_at(n).routes();
    for (uint32_t dst = 0; dst < graph_.hosts; ++dst) {
      const std::vector<uint32_t> ports = ports_towards(n, dst);
      if (ports.size() < 2) continue;  // no choice to pin
      for (uint32_t src = 0; src < graph_.hosts; ++src) {
        if (src == dst) continue;
        for (uint32_t a = 1; a <= aliases; ++a) {
          routes.add_static_route(host_address(src, a), host_address(dst, a),
                                  ports[(a - 1) % ports.size()]);
        }
      }
    }
  }
}

}  // namespace bifrost::sim
