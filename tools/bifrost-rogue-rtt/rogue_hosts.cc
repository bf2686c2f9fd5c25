#include "rogue_hosts.h"

#include "bifrost/rnic/connect.h"
#include "bifrost/rnic/nic_profile.h"
#include "bifrost/transport/rtt/rogue_batch.h"

namespace bifrost::rogue_rtt {
namespace {

sim::TransportPairConfig pair_config(const WireConfig& c) {
  sim::TransportPairConfig pc;
  pc.wire.rate = c.line_rate;
  pc.wire.delay = c.one_way_delay;
  pc.wire.seed = c.seed;
  // A real Ethernet line: each frame also costs its FCS, preamble and gap, which RoGUE's
  // B_sig / rate subtracts at line rate (rtt/rogue_batch.h). Without them the wire is 24 B a
  // frame faster than the estimator believes and every RC sample drifts to zero.
  pc.wire.framing_bytes = static_cast<uint32_t>(transport::kLineBytesPerFrameBeyondMetered);
  rnic::connectx3pro_profile().apply(pc.device);
  pc.device.complete_sends_at_transmit = c.completes_at_transmit;
  pc.endpoint.seed = c.seed;
  pc.bifrost_connection = false;
  pc.app_bytes = 1 << 20;
  return pc;
}

}  // namespace

Hosts::Hosts(const WireConfig& wire, uint64_t region_bytes)
    : pair(pair_config(wire)), mtu(wire.mtu) {
  for (int i = 0; i < 2; ++i) {
    auto& side = pair.side(i);
    memory[i] = std::make_unique<rnic::TokenMemory>(kRegionBase, region_bytes);
    region[i] = &side.device->reg_mr(
        side.endpoint->pd(), kRegionBase, region_bytes,
        rnic::Access::local_write | rnic::Access::remote_write | rnic::Access::remote_read,
        memory[i].get());
  }
  memory[1]->fill(kRegionBase, region_bytes, 7);  // what the READs fetch
}

void Hosts::connect_bare_rc(size_t cq_entries) {
  for (int i = 0; i < 2; ++i) {
    auto& side = pair.side(i);
    cq[i] = &side.device->create_cq(cq_entries);
    qp[i] = &side.device->create_qp(side.endpoint->pd(), rnic::QpType::rc, *cq[i], *cq[i]);
  }
  for (int i = 0; i < 2; ++i) {
    rnic::QpConnection c;
    c.dest_ip = pair.side(1 - i).device->gids().front();
    c.dest_qp_num = qp[1 - i]->qp_num();
    c.sq_psn = 100;
    c.rq_psn = 100;
    c.path_mtu = mtu;
    rnic::connect_qp(*qp[i], c);
  }
}

}  // namespace bifrost::rogue_rtt
