// Flow control on the links of a Network: [switch.pfc] on every link class without its own
// [switch.flow_control.<class>] table, and PFC, Bifrost DCI, CBFC, SWING (network_swing.cc) or
// nothing on those with one.
// Each switch end of a link controls the egress at the other end (a switch port or a NIC).
#include <fmt/format.h>

#include <algorithm>
#include <variant>

#include "bifrost/core/error.h"
#include "bifrost/core/overloaded.h"
#include "bifrost/net/flowctl/pfc_ingress.h"
#include "bifrost/sim/network.h"
#include "bifrost/wire/codec.h"

namespace bifrost::sim {
namespace {

const scenario::LinkClassFlowControl* override_of(const NetworkConfig& config,
                                                  const std::string& link_class) {
  for (const auto& fc : config.switches.flow_control) {
    if (fc.link_class == link_class) return &fc;
  }
  return nullptr;
}

}  // namespace

// The largest data frame either flow source sends: a full RDMA WRITE FIRST (RETH) or, for the
// soft RNIC, a full WRITE ONLY with immediate (RETH + ImmDt), plus the SR extension the
// selective engines put on every request packet.
uint32_t Network::max_data_frame(Bytes mtu) {
  const auto payload = static_cast<uint32_t>(mtu.count());
  return std::max(net::data_frame_bytes(wire::Opcode::kRcWriteFirst, payload),
                  net::data_frame_bytes(wire::Opcode::kRcWriteOnlyImm, payload)) +
         static_cast<uint32_t>(wire::kSrExtensionSize);
}

uint32_t Network::port_on_link(uint32_t node, uint32_t link) const {
  for (const auto& att : adjacency_[node]) {
    if (att.link == link) return att.port;
  }
  throw Error("topology: {} is not an end of link {}", graph_.nodes[node].name, link);
}

void Network::install_flow_control(const NetworkConfig& config) {
  for (uint32_t l = 0; l < links_.size(); ++l) {
    const LinkInfo& info = links_[l];
    const auto* fc = override_of(config, info.link_class);
    if (fc == nullptr && !config.switches.pfc.enabled) continue;
    // SWING's relays are the ends of the long link; they and the switches are set up at once.
    if (const auto* swing = fc ? std::get_if<scenario::SwingFlowControl>(&fc->kind) : nullptr) {
      try {
        install_swing(config, *swing, l);
      } catch (const Error& e) {
        throw Error("{}: {}", fc->where, e.what());
      }
      continue;
    }
    for (const auto& [down, up] : {std::pair{info.a, info.b}, std::pair{info.b, info.a}}) {
      if (graph_.is_host(down)) continue;  // a host has no buffer to protect
      // The ports of this very link: parallel links (dci_links) join the same two nodes.
      const Ends ends{down, port_on_link(down, l), up, port_on_link(up, l)};
      if (fc == nullptr) {
        install_pfc(config, config.switches.pfc, info, ends);
        continue;
      }
      // Errors only the built network can find name the table that asked for it.
      try {
        std::visit(
            Overloaded{
                [](const scenario::NoFlowControl&) {},
                [&](const scenario::PfcConfig& pfc) { install_pfc(config, pfc, info, ends); },
                [&](const scenario::DciFlowControl& dci) { install_dci(config, dci, ends); },
                [&](const scenario::CbfcFlowControl& cbfc) { install_cbfc(config, cbfc, ends); },
                [](const scenario::SwingFlowControl&) {},  // installed above
            },
            fc->kind);
      } catch (const Error& e) {
        throw Error("{}: {}", fc->where, e.what());
      }
    }
  }
}

void Network::install_pfc(const NetworkConfig& config, const scenario::PfcConfig& pfc,
                          const LinkInfo& info, const Ends& e) {
  net::PfcConfig c;
  c.lossless_priorities = config.lossless_priorities;
  if (pfc.threshold == scenario::PfcThreshold::static_bytes) {
    c.xoff = net::Threshold::fixed(pfc.xoff);
    c.xon_offset = pfc.xoff - pfc.xon;
  } else {
    c.xoff = net::Threshold::dynamic(config.switches.alpha);
    c.xon_offset = pfc.resume_offset;
  }
  if (pfc.headroom) {
    c.headroom = *pfc.headroom;
  } else {
    // Sized for the largest frame any flow source sends, as the PFC point checks.
    const uint32_t max_frame = max_data_frame(config.mtu);
    c.headroom = net::pfc_headroom_bound({.rate = info.link->rate(),
                                          .propagation = info.link->propagation(),
                                          .ingress_latency = config.switch_latency,
                                          .max_frame_bytes = max_frame,
                                          .max_reverse_frame_bytes = max_frame,
                                          .jitter = info.link->a_to_b().jitter()});
  }
  c.max_reverse_frame_bytes = max_data_frame(config.mtu);
  auto pair = net::install_pfc(scheduler_, c, *switches_[e.down - graph_.hosts], e.down_port,
                               egress_of(e.up, e.up_port));
  pfc_points_.push_back(
      {fmt::format("{}->{}", graph_.nodes[e.up].name, graph_.nodes[e.down].name), pair.gate});
}

void Network::install_dci(const NetworkConfig& config, const scenario::DciFlowControl& dci,
                          const Ends& e) {
  if (config.lossless_priorities == 0) return;  // no traffic to protect
  net::DciConfig c;
  c.priorities = config.lossless_priorities;
  c.slot = dci.slot;
  c.buffer = dci.buffer;
  c.leak_every = dci.leak_every;
  c.guard_full_pauses = dci.guard;
  c.literal = dci.literal;
  c.max_frame_bytes = max_data_frame(config.mtu);
  const auto pair = net::install_dci(scheduler_, c, *switches_[e.down - graph_.hosts], e.down_port,
                                     egress_of(e.up, e.up_port));
  const std::string name =
      fmt::format("{}->{}", graph_.nodes[e.up].name, graph_.nodes[e.down].name);
  pfc_points_.push_back({name, pair.gate});
  dci_points_.push_back({name, pair.ingress});
}

void Network::install_cbfc(const NetworkConfig& config, const scenario::CbfcFlowControl& cbfc,
                           const Ends& e) {
  if (config.lossless_priorities == 0) return;
  net::CbfcConfig c;
  c.priorities = config.lossless_priorities;
  c.buffer = cbfc.buffer;
  c.update_period = cbfc.update_period;
  c.field_bits = cbfc.field_bits;
  const auto pair = net::install_cbfc(scheduler_, c, *switches_[e.down - graph_.hosts], e.down_port,
                                      egress_of(e.up, e.up_port));
  cbfc_points_.push_back(
      {fmt::format("{}->{}", graph_.nodes[e.up].name, graph_.nodes[e.down].name), pair});
}

void Network::disable_pfc() {
  for (const auto& sw : switches_) {
    for (uint32_t port = 0; port < sw->port_count(); ++port) disable_pfc_at(*sw, port);
  }
}

void Network::disable_pfc_at(net::Switch& sw, uint32_t port) {
  if (dynamic_cast<net::PfcIngress*>(sw.ingress_flow_control(port)) == nullptr) return;
  for (int p = 0; p < net::kPriorities; ++p) {
    if (sw.buffer().ingress_usage(port, p).headroom > Bytes(0)) {
      scheduler_.after(Time::us(1), [this, &sw, port] { disable_pfc_at(sw, port); });
      return;
    }
  }
  sw.set_ingress_flow_control(port, nullptr);
}

}  // namespace bifrost::sim
