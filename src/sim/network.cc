#include "bifrost/sim/network.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <limits>

#include "bifrost/core/error.h"

namespace bifrost::sim {
namespace {

constexpr uint32_t kUnreached = std::numeric_limits<uint32_t>::max();

net::SwitchConfig switch_config(const topology::Node& node, uint32_t ports, const NetworkConfig& c,
                                uint64_t seed) {
  net::SwitchConfig s;
  s.name = node.name;
  s.ports = ports;
  s.processing_latency = c.switch_latency;
  s.buffer.total = c.switches.buffer;
  s.buffer.alpha = c.switches.alpha;
  if (node.border && c.switches.border) {
    s.buffer.partition = net::BufferPartition::kStatic;
    s.buffer.reserved_per_queue = c.switches.border->queue_buffer;
  }
  if (c.switches.ecn) {
    for (auto& ecn : s.ecn)
      ecn = {true, c.switches.ecn->kmin, c.switches.ecn->kmax, c.switches.ecn->pmax};
  }
  s.seed = seed;
  return s;
}

}  // namespace

world::Ipv4 host_address(uint32_t index, uint32_t alias) {
  return world::Ipv4{world::Ipv4::of(10, 0, 0, 0).value + (alias << 20) + index + 1};
}

Network::Network(world::Scheduler& scheduler, topology::Graph graph, const NetworkConfig& config)
    : scheduler_(scheduler),
      graph_(std::move(graph)),
      addressing_(config.addressing),
      adjacency_(graph_.nodes.size()) {
  if (addressing_.host_aliases > scenario::kMaxHostAliases) {
    throw Error("network: {} host aliases; at most {}", addressing_.host_aliases,
                scenario::kMaxHostAliases);
  }
  if (graph_.hosts >= (1u << 20)) throw Error("network: {} hosts; at most 2^20", graph_.hosts);
  // Ports are numbered per node in the order its edges appear in the graph.
  for (uint32_t e = 0; e < graph_.edges.size(); ++e) {
    const auto& edge = graph_.edges[e];
    adjacency_[edge.a].push_back({e, edge.b, static_cast<uint32_t>(adjacency_[edge.a].size())});
    adjacency_[edge.b].push_back({e, edge.a, static_cast<uint32_t>(adjacency_[edge.b].size())});
  }
  build_nodes(config);
  build_links(config);
  install_routes();
  if (addressing_.routing == scenario::RoutingMode::source) install_source_routes();
  install_flow_control(config);
}

void Network::build_nodes(const NetworkConfig& config) {
  for (uint32_t h = 0; h < graph_.hosts; ++h) {
    if (adjacency_[h].size() != 1) {
      throw Error("topology: host {} has {} links; a host has exactly one", graph_.nodes[h].name,
                  adjacency_[h].size());
    }
    net::HostConfig hc;
    hc.name = graph_.nodes[h].name;
    for (uint32_t a = 0; a <= addressing_.host_aliases; ++a)
      hc.addresses.push_back(host_address(h, a));
    hosts_.push_back(std::make_unique<net::Host>(scheduler_, hc));
  }
  for (uint32_t n = graph_.hosts; n < graph_.nodes.size(); ++n) {
    const auto ports = static_cast<uint32_t>(adjacency_[n].size());
    switches_.push_back(std::make_unique<net::Switch>(
        scheduler_, switch_config(graph_.nodes[n], ports, config, config.seed * 1'000'003 + n)));
  }
}

net::EgressPort& Network::egress_of(uint32_t node, uint32_t port) {
  if (graph_.is_host(node)) return hosts_[node]->nic();
  return switches_[node - graph_.hosts]->egress(port);
}

void Network::build_links(const NetworkConfig& config) {
  const uint64_t seed = config.seed;
  std::vector<uint32_t> next_port(graph_.nodes.size(), 0);
  auto end_of = [&](uint32_t node) {
    const uint32_t port = next_port[node]++;
    if (graph_.is_host(node)) return hosts_[node]->port();
    return switches_[node - graph_.hosts]->port(port);
  };
  for (const auto& edge : graph_.edges) {
    net::LinkConfig lc;
    lc.rate = edge.link.rate;
    lc.propagation = edge.link.delay;
    lc.jitter = edge.link.jitter;
    lc.seed = seed * 1'000'003 + 500'009 + links_.size();  // its own jitter stream per link
    const net::LinkEnd a = end_of(edge.a);
    const net::LinkEnd b = end_of(edge.b);
    swing_site_of_link_.push_back(-1);
    if (const auto* swing = swing_of(config, edge.link_class)) {
      swing_site_of_link_.back() = static_cast<int32_t>(swing_sites_.size());
      links_.push_back(build_swing_link(config, *swing, edge, lc, a, b));
      continue;
    }
    links_.push_back({fmt::format("{}-{}", graph_.nodes[edge.a].name, graph_.nodes[edge.b].name),
                      edge.link_class, edge.a, edge.b,
                      std::make_unique<net::Link>(scheduler_, lc, a, b)});
  }
}

std::vector<uint32_t> Network::distances_from(uint32_t node) const {
  std::vector<uint32_t> dist(graph_.nodes.size(), kUnreached);
  std::deque<uint32_t> frontier{node};
  dist[node] = 0;
  while (!frontier.empty()) {
    const uint32_t n = frontier.front();
    frontier.pop_front();
    if (graph_.is_host(n) && n != node) continue;  // hosts do not forward
    for (const auto& att : adjacency_[n]) {
      if (dist[att.peer] == kUnreached) {
        dist[att.peer] = dist[n] + 1;
        frontier.push_back(att.peer);
      }
    }
  }
  return dist;
}

uint32_t Network::port_towards(uint32_t node, uint32_t peer) const {
  for (const auto& att : adjacency_[node]) {
    if (att.peer == peer) return att.port;
  }
  throw Error("topology: {} has no link to {}", graph_.nodes[node].name, graph_.nodes[peer].name);
}

void Network::install_routes() {
  // Every switch forwards towards a host on all neighbours one hop closer to it. Hosts on the
  // same switch share distances, so one search per attachment switch serves all of them.
  std::vector<uint32_t> tor_of(graph_.hosts);
  for (uint32_t h = 0; h < graph_.hosts; ++h) tor_of[h] = adjacency_[h][0].peer;
  std::vector<uint32_t> by_tor(graph_.hosts);
  for (uint32_t h = 0; h < graph_.hosts; ++h) by_tor[h] = h;
  std::stable_sort(by_tor.begin(), by_tor.end(),
                   [&](uint32_t x, uint32_t y) { return tor_of[x] < tor_of[y]; });
  std::vector<uint32_t> ports;
  for (std::size_t i = 0; i < by_tor.size();) {
    const uint32_t tor = tor_of[by_tor[i]];
    if (graph_.is_host(tor)) {
      throw Error("topology: host {} is linked to another host", graph_.nodes[by_tor[i]].name);
    }
    const auto dist = distances_from(tor);
    std::size_t j = i;
    for (; j < by_tor.size() && tor_of[by_tor[j]] == tor; ++j) {
      const uint32_t h = by_tor[j];
      // The attachment switch delivers every address of the host on the host's own port.
      for (uint32_t a = 0; a <= addressing_.host_aliases; ++a) {
        switches_[tor - graph_.hosts]->routes().add_route(host_address(h, a),
                                                          {port_towards(tor, h)});
      }
    }
    for (uint32_t n = graph_.hosts; n < graph_.nodes.size(); ++n) {
      if (n == tor || dist[n] == kUnreached) continue;
      ports.clear();
      for (const auto& att : adjacency_[n]) {
        if (!graph_.is_host(att.peer) && dist[att.peer] + 1 == dist[n]) ports.push_back(att.port);
      }
      for (std::size_t k = i; k < j; ++k) {
        for (uint32_t a = 0; a <= addressing_.host_aliases; ++a) {
          switches_[n - graph_.hosts]->routes().add_route(host_address(by_tor[k], a), ports);
        }
      }
    }
    i = j;
  }
}

std::vector<const Network::LinkInfo*> Network::shortest_path(uint32_t src, uint32_t dst) const {
  return shortest_paths(src, dst, 1).front();
}

std::vector<std::vector<const Network::LinkInfo*>> Network::shortest_paths(uint32_t src,
                                                                           uint32_t dst,
                                                                           uint32_t count) const {
  const auto dist = distances_from(dst);
  if (dist[src] == kUnreached) {
    throw Error("topology: no path from {} to {}", graph_.nodes[src].name, graph_.nodes[dst].name);
  }
  std::vector<std::vector<const LinkInfo*>> out;
  std::vector<const LinkInfo*> path;
  // Depth first in port order; a path ends at dst, which is never a transit node.
  const auto walk = [&](const auto& self, uint32_t n) -> void {
    if (n == dst) {
      out.push_back(path);
      return;
    }
    for (const auto& att : adjacency_[n]) {
      if (out.size() == count) return;
      if (dist[att.peer] + 1 != dist[n] || (graph_.is_host(att.peer) && att.peer != dst)) continue;
      const size_t depth = path.size();
      append_hop(path, att.link, n);
      self(self, att.peer);
      path.resize(depth);
    }
  };
  if (count > 0) walk(walk, src);
  return out;
}

}  // namespace bifrost::sim
