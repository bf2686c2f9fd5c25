#pragma once
// A simulated network built from a topology graph: hosts, switches and links from net/, with
// shortest-path ECMP routes and, when configured, flow control on every link end that can be
// paused: [switch.pfc] everywhere, or per link class PFC, Bifrost DCI, CBFC, SWING or none. A
// link of a class with SWING gets a relay node at each end (docs/net.md, "SWING").
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bifrost/net/flowctl/cbfc.h"
#include "bifrost/net/flowctl/dci.h"
#include "bifrost/net/flowctl/pfc.h"
#include "bifrost/net/flowctl/swing.h"
#include "bifrost/net/host.h"
#include "bifrost/net/link.h"
#include "bifrost/net/swing_relay.h"
#include "bifrost/net/switch.h"
#include "bifrost/sim/scenario/scenario.h"
#include "bifrost/sim/topology/graph.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::sim {

struct NetworkConfig {
  scenario::SwitchConfig switches;
  Bytes mtu = Bytes(1000);  // payload bytes per packet; sizes PFC headroom
  Time switch_latency = Time::zero();
  uint64_t seed = 1;
  // With flow control on, bit p makes priority p lossless; each lossless priority of each switch
  // port reserves its own headroom (DCI: H + k x S; CBFC: its buffer), so only the priorities
  // traffic uses should be set.
  uint8_t lossless_priorities = 1u << 3;
  // Extra addresses per host and how switches route them (scenario/topology.h).
  scenario::Addressing addressing{};
};

// The address of host `index`: 10.0.0.1 for host 0, counting up. Alias a (1 ..
// scenario::kMaxHostAliases) of the same host is a * 2^20 above it, so aliases of up to 2^20
// hosts stay inside 10.0.0.0/8 and never collide.
world::Ipv4 host_address(uint32_t index, uint32_t alias = 0);

class Network {
 public:
  struct LinkInfo {
    std::string name;        // "h3-tor0", "tor0-agg0.1", ...
    std::string link_class;  // "host", "fabric", ...
    uint32_t a = 0;          // graph node indices of the two ends
    uint32_t b = 0;
    std::unique_ptr<net::Link> link;
  };
  struct PfcPoint {
    std::string name;  // the paused egress: "<node>-><peer>"
    net::PfcGate* gate = nullptr;
  };
  struct DciPoint {
    std::string name;  // the controlled direction: "<upstream>-><downstream>"
    net::DciIngress* ingress = nullptr;
  };
  struct CbfcPoint {
    std::string name;  // the credit-gated direction: "<upstream>-><downstream>"
    net::CbfcPair pair;
  };
  struct SwingPoint {
    net::SwingRelay* relay = nullptr;
    net::SwingPoints points;
  };
  // A link of a class with SWING: the long link (links_[link], named after the two switches)
  // joins two relays, each tied to its switch by a short access link of the class's rate.
  struct SwingSite {
    uint32_t link = 0;
    std::array<std::unique_ptr<net::SwingRelay>, 2> relays;  // next to links_[link].a, .b
    std::array<LinkInfo, 2> access;  // a - relay a, relay b - b; both ends name the switch
  };

  // Throws Error for configurations the switches refuse (buffer too small for the headroom).
  Network(world::Scheduler& scheduler, topology::Graph graph, const NetworkConfig& config);
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  uint32_t host_count() const { return graph_.hosts; }
  net::Host& host(uint32_t index) { return *hosts_.at(index); }
  const std::vector<std::unique_ptr<net::Switch>>& switches() const { return switches_; }
  const std::vector<LinkInfo>& links() const { return links_; }
  // Every egress that obeys pauses: PFC's, and DCI's (whose upstream is a PFC gate).
  const std::vector<PfcPoint>& pfc_points() const { return pfc_points_; }
  const std::vector<DciPoint>& dci_points() const { return dci_points_; }
  const std::vector<CbfcPoint>& cbfc_points() const { return cbfc_points_; }
  const std::vector<SwingPoint>& swing_points() const { return swing_points_; }
  const std::vector<SwingSite>& swing_sites() const { return swing_sites_; }
  const topology::Graph& graph() const { return graph_; }
  const scenario::Addressing& addressing() const { return addressing_; }
  // The switch behind graph node `node` (not a host).
  net::Switch& switch_at(uint32_t node) { return *switches_.at(node - graph_.hosts); }
  // The equal-cost ports of switch node `node` towards host `dst` (one if there is no choice).
  std::vector<uint32_t> ports_towards(uint32_t node, uint32_t dst) const;
  // The link (index into links()) on switch node `node`'s port `port`.
  uint32_t link_on_port(uint32_t node, uint32_t port) const { return adjacency_[node][port].link; }

  // Turns PFC off at every switch ingress port that has it (a non-stop upgrade's last step):
  // the port becomes lossy, its headroom goes back to the shared pool, and pauses already sent
  // run out by themselves. A port with bytes in its headroom is retried every microsecond until
  // they have left, since the pool can take the headroom back only empty.
  void disable_pfc();

  // The links of one shortest path from host `src` to host `dst`, in order (all shortest paths
  // of the built-in topologies have the same hop count and link classes); a link with SWING
  // relays counts as its access link, the long link and the far access link.
  std::vector<const LinkInfo*> shortest_path(uint32_t src, uint32_t dst) const;
  // Up to `count` distinct shortest paths from `src` to `dst`, the first in port order at every
  // switch (on `multipath`: path link 0, 1, ..., the links source routing gives aliases 1, 2,
  // ...); fewer if there are fewer. Path 0 is shortest_path(src, dst).
  std::vector<std::vector<const LinkInfo*>> shortest_paths(uint32_t src, uint32_t dst,
                                                           uint32_t count) const;

 private:
  struct Attachment {
    uint32_t link = 0;  // index into links_
    uint32_t peer = 0;  // graph node at the other end
    uint32_t port = 0;  // this node's port number on the link
  };
  void build_nodes(const NetworkConfig& config);
  void build_links(const NetworkConfig& config);
  // network_swing.cc
  // The SWING settings of `link_class`, or nullptr if its links have none.
  static const scenario::SwingFlowControl* swing_of(const NetworkConfig& config,
                                                    const std::string& link_class);
  LinkInfo build_swing_link(const NetworkConfig& config, const scenario::SwingFlowControl& swing,
                            const topology::Edge& edge, const net::LinkConfig& long_link,
                            net::LinkEnd a, net::LinkEnd b);
  void install_swing(const NetworkConfig& config, const scenario::SwingFlowControl& swing,
                     uint32_t link);
  // Appends link `link` crossed from graph node `from`, with its relays' access links if any.
  void append_hop(std::vector<const LinkInfo*>& path, uint32_t link, uint32_t from) const;
  void install_routes();
  // network_source_routes.cc: RoutingMode::source's static routes.
  void install_source_routes();
  // network_flow_control.cc
  struct Ends {  // one direction of a link: the controlling switch and the controlled egress
    uint32_t down = 0;
    uint32_t down_port = 0;
    uint32_t up = 0;
    uint32_t up_port = 0;
  };
  void install_flow_control(const NetworkConfig& config);
  void install_pfc(const NetworkConfig& config, const scenario::PfcConfig& pfc,
                   const LinkInfo& info, const Ends& e);
  void install_dci(const NetworkConfig& config, const scenario::DciFlowControl& dci, const Ends& e);
  void install_cbfc(const NetworkConfig& config, const scenario::CbfcFlowControl& cbfc,
                    const Ends& e);
  // The largest data frame the flow sources send at this MTU (S in the sizing rules).
  static uint32_t max_data_frame(Bytes mtu);
  // `node`'s port on link `link` (an index into links_).
  uint32_t port_on_link(uint32_t node, uint32_t link) const;
  // Hop distances from `node` over switches (hosts are not transit nodes).
  std::vector<uint32_t> distances_from(uint32_t node) const;
  // This node's port on its link to `peer`; throws Error if there is none.
  uint32_t port_towards(uint32_t node, uint32_t peer) const;
  net::EgressPort& egress_of(uint32_t node, uint32_t port);

  world::Scheduler& scheduler_;
  topology::Graph graph_;
  scenario::Addressing addressing_;
  std::vector<std::vector<Attachment>> adjacency_;  // per graph node, in port order
  std::vector<std::unique_ptr<net::Host>> hosts_;
  std::vector<std::unique_ptr<net::Switch>> switches_;  // graph node hosts_+i is switch i
  std::vector<LinkInfo> links_;
  std::vector<PfcPoint> pfc_points_;
  void disable_pfc_at(net::Switch& sw, uint32_t port);
  std::vector<DciPoint> dci_points_;
  std::vector<CbfcPoint> cbfc_points_;
  std::vector<SwingPoint> swing_points_;
  std::vector<SwingSite> swing_sites_;
  std::vector<int32_t> swing_site_of_link_;  // per link: index into swing_sites_, or -1
};

}  // namespace bifrost::sim
