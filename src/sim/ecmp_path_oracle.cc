#include "bifrost/sim/ecmp_path_oracle.h"

#include <algorithm>
#include <map>
#include <memory>

#include "bifrost/core/error.h"
#include "bifrost/net/routing_table.h"
#include "bifrost/wire/headers.h"

namespace bifrost::sim {

std::optional<uint32_t> host_of(const Network& network, world::Ipv4 ip) {
  // host_address(h, a) = 10.0.0.0 + a * 2^20 + h + 1.
  const uint32_t offset = ip.value - world::Ipv4::of(10, 0, 0, 0).value;
  const uint32_t alias = offset >> 20;
  const uint32_t index = (offset & ((1u << 20) - 1)) - 1;
  if (ip.value < world::Ipv4::of(10, 0, 0, 0).value || alias > network.addressing().host_aliases ||
      index >= network.host_count()) {
    return std::nullopt;
  }
  return index;
}

std::vector<const Network::LinkInfo*> forwarded_path(Network& network, world::Ipv4 src,
                                                     world::Ipv4 dst, uint16_t src_port) {
  const auto from = host_of(network, src);
  const auto to = host_of(network, dst);
  if (!from || !to) {
    throw Error("forwarded path: {} -> {} is not between hosts", world::to_string(src),
                world::to_string(dst));
  }
  world::PacketPtr packet = world::make_packet();
  packet->src = {src, src_port};
  packet->dst = {dst, wire::kRoceV2UdpPort};
  // A host has one link: the first hop of any of its paths.
  std::vector<const Network::LinkInfo*> path{network.shortest_path(*from, *to).front()};
  uint32_t node = path.back()->a == *from ? path.back()->b : path.back()->a;
  while (!network.graph().is_host(node)) {
    net::Switch& sw = network.switch_at(node);
    const uint32_t port = sw.routes().lookup(*packet, sw.ecmp_seed());
    if (port == net::kNoPort) {
      throw Error("forwarded path: {} has no route to {}", sw.name(), world::to_string(dst));
    }
    const Network::LinkInfo& link = network.links()[network.link_on_port(node, port)];
    path.push_back(&link);
    node = link.a == node ? link.b : link.a;
  }
  return path;
}

transport::virtuoso::PathOracle ecmp_path_oracle(Network& network, uint32_t paths) {
  // The candidate paths of each host pair, computed once.
  auto known = std::make_shared<std::map<std::pair<uint32_t, uint32_t>,
                                         std::vector<std::vector<const Network::LinkInfo*>>>>();
  return [&network, paths, known](world::Ipv4 src, world::Ipv4 dst,
                                  uint16_t port) -> std::optional<uint32_t> {
    const auto taken = forwarded_path(network, src, dst, port);
    const std::pair hosts{*host_of(network, src), *host_of(network, dst)};
    auto it = known->find(hosts);
    if (it == known->end()) {
      it = known->emplace(hosts, network.shortest_paths(hosts.first, hosts.second, paths)).first;
    }
    const auto match = std::find(it->second.begin(), it->second.end(), taken);
    if (match == it->second.end()) return std::nullopt;
    return static_cast<uint32_t>(match - it->second.begin());
  };
}

}  // namespace bifrost::sim
