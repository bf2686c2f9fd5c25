#include "bifrost/sim/topology/graph.h"

#include <fmt/format.h>

#include <type_traits>

#include "bifrost/core/error.h"

namespace bifrost::sim::topology {
namespace {

using scenario::LinkSpec;

Graph with_hosts(uint64_t count) {
  if (count == 0) throw Error("topology: it has no hosts");
  if (count > UINT32_MAX / 2) throw Error("topology: {} hosts is more than supported", count);
  Graph g;
  g.hosts = static_cast<uint32_t>(count);
  for (uint32_t h = 0; h < g.hosts; ++h)
    g.nodes.push_back({Node::Kind::kHost, fmt::format("h{}", h), false});
  return g;
}

// Hosts [first, first + n) hang off switch `sw`.
void attach_hosts(Graph& g, uint32_t sw, uint32_t first, uint32_t n, const LinkSpec& link) {
  for (uint32_t h = first; h < first + n; ++h) g.connect(h, sw, link, "host");
}

Graph dumbbell(const scenario::DumbbellTopology& t) {
  Graph g = with_hosts(uint64_t{2} * t.hosts_per_side);
  const uint32_t left = g.add_switch("left");
  const uint32_t right = g.add_switch("right");
  attach_hosts(g, left, 0, t.hosts_per_side, t.host);
  attach_hosts(g, right, t.hosts_per_side, t.hosts_per_side, t.host);
  g.connect(left, right, t.bottleneck, "bottleneck");
  return g;
}

Graph star(const scenario::StarTopology& t) {
  Graph g = with_hosts(t.hosts);
  attach_hosts(g, g.add_switch("switch"), 0, t.hosts, t.host);
  return g;
}

// One leaf-spine fabric whose hosts start at `first_host`; returns the spine node indices.
std::vector<uint32_t> add_leaf_spine(Graph& g, const scenario::LeafSpineTopology& t,
                                     uint32_t first_host, const std::string& prefix) {
  std::vector<uint32_t> spines;
  for (uint32_t s = 0; s < t.spines; ++s)
    spines.push_back(g.add_switch(fmt::format("{}spine{}", prefix, s)));
  for (uint32_t l = 0; l < t.leaves; ++l) {
    const uint32_t leaf = g.add_switch(fmt::format("{}leaf{}", prefix, l));
    attach_hosts(g, leaf, first_host + l * t.hosts_per_leaf, t.hosts_per_leaf, t.host);
    for (uint32_t spine : spines) g.connect(leaf, spine, t.fabric, "fabric");
  }
  return spines;
}

Graph leaf_spine(const scenario::LeafSpineTopology& t) {
  Graph g = with_hosts(uint64_t{t.leaves} * t.hosts_per_leaf);
  add_leaf_spine(g, t, 0, "");
  return g;
}

Graph fat_tree(const scenario::FatTreeTopology& t) {
  if (t.k < 2 || t.k % 2 != 0)
    throw Error("topology: fat_tree k must be even and >= 2, not {}", t.k);
  const uint32_t half = t.k / 2;
  const uint32_t per_tor = t.oversubscription * half;
  if (t.tiers == 2) {
    // k ToRs, each with one uplink to each of k/2 spines.
    Graph g = with_hosts(uint64_t{t.k} * per_tor);
    std::vector<uint32_t> spines;
    for (uint32_t s = 0; s < half; ++s) spines.push_back(g.add_switch(fmt::format("spine{}", s)));
    for (uint32_t r = 0; r < t.k; ++r) {
      const uint32_t tor = g.add_switch(fmt::format("tor{}", r));
      attach_hosts(g, tor, r * per_tor, per_tor, t.host);
      for (uint32_t spine : spines) g.connect(tor, spine, t.fabric, "fabric");
    }
    return g;
  }
  if (t.tiers != 3) throw Error("topology: fat_tree tiers must be 2 or 3, not {}", t.tiers);
  // k pods of k/2 ToRs and k/2 aggregation switches; (k/2)^2 cores. Aggregation switch i of
  // every pod links to cores i*k/2 .. i*k/2 + k/2 - 1.
  Graph g = with_hosts(uint64_t{t.k} * half * per_tor);
  std::vector<uint32_t> cores;
  for (uint32_t c = 0; c < half * half; ++c)
    cores.push_back(g.add_switch(fmt::format("core{}", c)));
  for (uint32_t pod = 0; pod < t.k; ++pod) {
    std::vector<uint32_t> aggs;
    for (uint32_t i = 0; i < half; ++i) {
      const uint32_t agg = g.add_switch(fmt::format("agg{}.{}", pod, i));
      // Their own class, so flow control can differ by tier (PFC up to the aggregation
      // switches, a lossy core: the Bifröst paper's Fig. 8).
      for (uint32_t c = 0; c < half; ++c) g.connect(agg, cores[i * half + c], t.fabric, "core");
      aggs.push_back(agg);
    }
    for (uint32_t j = 0; j < half; ++j) {
      const uint32_t index = pod * half + j;
      const uint32_t tor = g.add_switch(fmt::format("tor{}", index));
      attach_hosts(g, tor, index * per_tor, per_tor, t.host);
      for (uint32_t agg : aggs) g.connect(tor, agg, t.fabric, "fabric");
    }
  }
  return g;
}

Graph parking_lot(const scenario::ParkingLotTopology& t) {
  Graph g = with_hosts(uint64_t{t.hops + 1} * t.hosts_per_switch);
  uint32_t previous = 0;
  for (uint32_t s = 0; s <= t.hops; ++s) {
    const uint32_t sw = g.add_switch(fmt::format("s{}", s));
    attach_hosts(g, sw, s * t.hosts_per_switch, t.hosts_per_switch, t.host);
    if (s > 0) g.connect(previous, sw, t.chain, "chain");
    previous = sw;
  }
  return g;
}

Graph two_dc(const scenario::TwoDcTopology& t) {
  const uint32_t per_dc = t.dc.leaves * t.dc.hosts_per_leaf;
  Graph g = with_hosts(uint64_t{2} * per_dc);
  std::vector<uint32_t> borders;
  for (uint32_t dc = 0; dc < 2; ++dc) {
    const std::string prefix = fmt::format("dc{}.", dc);
    const auto spines = add_leaf_spine(g, t.dc, dc * per_dc, prefix);
    const uint32_t border = g.add_switch(prefix + "border");
    g.nodes[border].border = true;
    for (uint32_t spine : spines) g.connect(spine, border, t.dc.fabric, "fabric");
    borders.push_back(border);
  }
  if (t.dci_links == 0) throw Error("topology: two_dc needs at least one dci link");
  for (uint32_t i = 0; i < t.dci_links; ++i) g.connect(borders[0], borders[1], t.dci, "dci");
  return g;
}

// Virtuoso's testbed: two ToRs joined by parallel path links, in path order (path link i is
// the i-th edge between the ToRs, which source routing relies on).
Graph multipath(const scenario::MultipathTopology& t) {
  if (t.paths == 0) throw Error("topology: multipath needs at least one path");
  if (!t.path_rates.empty() && t.path_rates.size() != t.paths) {
    throw Error("topology: {} path rates for {} paths", t.path_rates.size(), t.paths);
  }
  Graph g = with_hosts(uint64_t{2} * t.hosts_per_side);
  const uint32_t left = g.add_switch("left");
  const uint32_t right = g.add_switch("right");
  attach_hosts(g, left, 0, t.hosts_per_side, t.host);
  attach_hosts(g, right, t.hosts_per_side, t.hosts_per_side, t.host);
  for (uint32_t i = 0; i < t.paths; ++i) {
    LinkSpec link = t.path;
    if (!t.path_rates.empty()) link.rate = t.path_rates[i];
    g.connect(left, right, link, "path");
  }
  return g;
}

}  // namespace

uint32_t Graph::add_switch(std::string name) {
  nodes.push_back({Node::Kind::kSwitch, std::move(name), false});
  return static_cast<uint32_t>(nodes.size() - 1);
}

void Graph::connect(uint32_t a, uint32_t b, const scenario::LinkSpec& link,
                    std::string link_class) {
  edges.push_back({a, b, link, std::move(link_class)});
}

Graph describe(const scenario::Topology& topology) {
  return std::visit(
      [](const auto& t) -> Graph {
        using T = std::decay_t<decltype(t)>;
        if constexpr (std::is_same_v<T, scenario::DumbbellTopology>) return dumbbell(t);
        if constexpr (std::is_same_v<T, scenario::StarTopology>) return star(t);
        if constexpr (std::is_same_v<T, scenario::LeafSpineTopology>) return leaf_spine(t);
        if constexpr (std::is_same_v<T, scenario::FatTreeTopology>) return fat_tree(t);
        if constexpr (std::is_same_v<T, scenario::ParkingLotTopology>) return parking_lot(t);
        if constexpr (std::is_same_v<T, scenario::TwoDcTopology>) return two_dc(t);
        if constexpr (std::is_same_v<T, scenario::MultipathTopology>) return multipath(t);
      },
      topology);
}

}  // namespace bifrost::sim::topology
