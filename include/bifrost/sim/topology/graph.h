#pragma once
// A topology as a plain graph: which nodes exist (hosts first, in host-index order, then
// switches) and which links join them, with each link's class ("host", "fabric", ...). Building
// the graph is pure and testable; sim/network.h turns it into switches, hosts and links.
#include <cstdint>
#include <string>
#include <vector>

#include "bifrost/sim/scenario/topology.h"

namespace bifrost::sim::topology {

struct Node {
  enum class Kind : uint8_t { kHost, kSwitch };
  Kind kind = Kind::kHost;
  std::string name;     // "h12", "tor3", "agg1.2", "core5", ...
  bool border = false;  // a two_dc border (DCI) switch: [switch.border] sets its buffer
};

struct Edge {
  uint32_t a = 0;  // node indices
  uint32_t b = 0;
  scenario::LinkSpec link;
  std::string link_class;  // a name from scenario::link_classes()
};

struct Graph {
  uint32_t hosts = 0;  // nodes [0, hosts) are the hosts
  std::vector<Node> nodes;
  std::vector<Edge> edges;

  uint32_t add_switch(std::string name);
  void connect(uint32_t a, uint32_t b, const scenario::LinkSpec& link, std::string link_class);
  bool is_host(uint32_t node) const { return node < hosts; }
};

// The graph of a scenario topology, following the host numbering documented in
// scenario/topology.h. Throws Error for impossible parameters (odd fat-tree radix, zero hosts).
Graph describe(const scenario::Topology& topology);

}  // namespace bifrost::sim::topology
