// SWING in a Network (docs/net.md, "SWING"): each link of a class with SWING becomes
//   switch a -(access)- relay a =(the long link)= relay b -(access)- switch b
// at build time, with the relays' flow control and the switches' PFC towards them installed
// with the rest of the flow control. The switches' ports and routes do not change: the relays
// forward whatever enters one port out of the other.
#include <fmt/format.h>

#include <bit>

#include "bifrost/core/error.h"
#include "bifrost/sim/network.h"

namespace bifrost::sim {
namespace {

uint64_t lossless_count(const NetworkConfig& config) {
  return static_cast<uint64_t>(std::popcount(config.lossless_priorities));
}

net::SwingTrigger trigger_of(const scenario::SwingFlowControl& swing) {
  return swing.trigger == scenario::SwingFlowControl::Trigger::kThreshold
             ? net::SwingTrigger::kOwnThreshold
             : net::SwingTrigger::kRelaySwitchPauses;
}

}  // namespace

const scenario::SwingFlowControl* Network::swing_of(const NetworkConfig& config,
                                                    const std::string& link_class) {
  for (const auto& fc : config.switches.flow_control) {
    if (fc.link_class == link_class) return std::get_if<scenario::SwingFlowControl>(&fc.kind);
  }
  return nullptr;
}

Network::LinkInfo Network::build_swing_link(const NetworkConfig& config,
                                            const scenario::SwingFlowControl& swing,
                                            const topology::Edge& edge,
                                            const net::LinkConfig& long_link, net::LinkEnd a,
                                            net::LinkEnd b) {
  const uint32_t frame = max_data_frame(config.mtu);
  // Each lossless priority reserves the long-link buffer and the local xoff + headroom; lossy
  // traffic shares a switch buffer's worth besides.
  // As install_swing_relay's default: the rule, plus xoff when the relay has its own threshold.
  const Bytes rule = net::swing_relay_buffer({.rate = long_link.rate,
                                              .propagation = long_link.propagation,
                                              .jitter = long_link.jitter,
                                              .relay_latency = config.switch_latency,
                                              .max_frame_bytes = frame,
                                              .overhead_bytes = long_link.frame_overhead_bytes});
  const Bytes buffer = swing.buffer.value_or(
      trigger_of(swing) == net::SwingTrigger::kOwnThreshold ? swing.xoff + rule : rule);
  const Bytes local_headroom = net::pfc_headroom_bound(
      {long_link.rate, swing.relay_delay, config.switch_latency, frame, frame});
  const Bytes per_priority = buffer + swing.xoff + local_headroom;
  net::LinkConfig access = long_link;
  access.propagation = swing.relay_delay;
  access.jitter = Time::zero();

  SwingSite site;
  site.link = static_cast<uint32_t>(links_.size());
  const std::array<uint32_t, 2> nodes = {edge.a, edge.b};
  const std::array<net::LinkEnd, 2> ends = {a, b};
  for (std::size_t side = 0; side < 2; ++side) {
    net::SwingRelayConfig rc;
    rc.name = fmt::format("{}/swing{}", graph_.nodes[nodes[side]].name, swing_sites_.size());
    rc.processing_latency = config.switch_latency;
    rc.buffer.total = Bytes(per_priority.count() * lossless_count(config)) + config.switches.buffer;
    rc.buffer.alpha = config.switches.alpha;
    site.relays[side] = std::make_unique<net::SwingRelay>(scheduler_, rc);
    net::SwingRelay& relay = *site.relays[side];
    access.seed = long_link.seed * 2 + 1 + side;
    site.access[side] = {fmt::format("{}-{}", graph_.nodes[nodes[side]].name, relay.name()),
                         edge.link_class, nodes[side], nodes[side],
                         std::make_unique<net::Link>(scheduler_, access, ends[side],
                                                     relay.port(net::SwingRelay::kLocalPort))};
  }
  LinkInfo info{fmt::format("{}-{}", graph_.nodes[edge.a].name, graph_.nodes[edge.b].name),
                edge.link_class, edge.a, edge.b,
                std::make_unique<net::Link>(scheduler_, long_link,
                                            site.relays[0]->port(net::SwingRelay::kRemotePort),
                                            site.relays[1]->port(net::SwingRelay::kRemotePort))};
  swing_sites_.push_back(std::move(site));
  return info;
}

void Network::install_swing(const NetworkConfig& config, const scenario::SwingFlowControl& swing,
                            uint32_t link) {
  if (config.lossless_priorities == 0) return;  // no traffic to protect
  const SwingSite& site = swing_sites_.at(static_cast<std::size_t>(swing_site_of_link_[link]));
  const std::array<uint32_t, 2> nodes = {links_[link].a, links_[link].b};
  net::SwingConfig c;
  c.priorities = config.lossless_priorities;
  c.trigger = trigger_of(swing);
  c.buffer = swing.buffer;
  c.xoff = swing.xoff;
  c.xon = swing.xon;
  c.max_frame_bytes = max_data_frame(config.mtu);
  for (std::size_t side = 0; side < 2; ++side) {
    net::SwingRelay& relay = *site.relays[side];
    net::SwingRelay& far = *site.relays[1 - side];
    net::Switch& sw = *switches_[nodes[side] - graph_.hosts];
    const uint32_t port = port_on_link(nodes[side], link);
    const net::SwingPoints points = net::install_swing_relay(
        scheduler_, c, relay, sw.egress(port), far.egress(net::SwingRelay::kRemotePort));
    // The switch's port towards the relay: ordinary PFC with the same thresholds.
    net::PfcConfig pfc;
    pfc.lossless_priorities = c.priorities;
    pfc.xoff = net::Threshold::fixed(c.xoff);
    pfc.xon = c.xon;
    pfc.headroom = net::swing_local_headroom(c, relay);
    pfc.max_reverse_frame_bytes = c.max_frame_bytes;
    const net::PfcPair to_relay =
        net::install_pfc(scheduler_, pfc, sw, port, relay.egress(net::SwingRelay::kLocalPort));
    const std::string& name = graph_.nodes[nodes[side]].name;
    pfc_points_.push_back({fmt::format("{}->{}", relay.name(), name), to_relay.gate});
    pfc_points_.push_back({fmt::format("{}->{}", name, relay.name()), points.local_gate});
    pfc_points_.push_back({fmt::format("{}->{}", far.name(), relay.name()), points.remote_gate});
    swing_points_.push_back({&relay, points});
  }
}

void Network::append_hop(std::vector<const LinkInfo*>& path, uint32_t link, uint32_t from) const {
  const int32_t s = swing_site_of_link_[link];
  if (s < 0) {
    path.push_back(&links_[link]);
    return;
  }
  const SwingSite& site = swing_sites_[static_cast<std::size_t>(s)];
  const std::size_t near = from == links_[link].a ? 0 : 1;
  path.push_back(&site.access[near]);
  path.push_back(&links_[link]);
  path.push_back(&site.access[1 - near]);
}

}  // namespace bifrost::sim
