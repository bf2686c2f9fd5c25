#include "bifrost/sim/nic_pair.h"

#include <fmt/format.h>

#include "bifrost/rnic/connect.h"

namespace bifrost::sim {

using namespace bifrost::rnic;

std::vector<WorkCompletion> NicPair::Side::poll() {
  std::vector<WorkCompletion> out(cq->size());
  out.resize(cq->poll(out.size(), out));
  return out;
}

NicPair::NicPair(const NicPairConfig& config)
    : config_(config), wire_(std::make_unique<LossyWire>(kernel_, config.wire)) {
  build(a_, 0);
  build(b_, 1);
  connect(*a_.qp, b_, *b_.qp);
  connect(*b_.qp, a_, *a_.qp);
}

NicPair::QpPair NicPair::add_qp_pair() {
  QpPair pair{&a_.device->create_qp(a_.pd, config_.type, *a_.cq, *a_.cq),
              &b_.device->create_qp(b_.pd, config_.type, *b_.cq, *b_.cq)};
  connect(*pair.a, b_, *pair.b);
  connect(*pair.b, a_, *pair.a);
  return pair;
}

void NicPair::build(Side& side, int index) {
  DeviceConfig dc = index == 1 && config_.device_b ? *config_.device_b : config_.device;
  dc.name = fmt::format("nic{}", index);
  dc.gids = {world::Ipv4::of(10, 0, 0, static_cast<uint8_t>(index + 1))};
  side.device = std::make_unique<Device>(kernel_, dc);
  side.device->attach(wire_->end(index));
  side.pd = side.device->alloc_pd();
  side.cq = &side.device->create_cq(config_.cq_entries);
  side.qp = &side.device->create_qp(side.pd, config_.type, *side.cq, *side.cq);
  side.memory = std::make_unique<TokenMemory>(kBufferBase, config_.buffer_bytes);
  side.mr = &side.device->reg_mr(side.pd, kBufferBase, config_.buffer_bytes,
                                 Access::local_write | Access::remote_write | Access::remote_read,
                                 side.memory.get());
}

void NicPair::connect(QueuePair& qp, const Side& peer, const QueuePair& peer_qp) {
  QpConnection c;
  c.dest_ip = peer.device->gids().front();
  c.dest_qp_num = peer_qp.qp_num();
  c.rq_psn = c.sq_psn = config_.first_psn;
  c.path_mtu = config_.mtu;
  c.qkey = config_.qkey;
  c.timeout = config_.timeout;
  c.retry_cnt = config_.retry_cnt;
  c.rnr_retry = config_.rnr_retry;
  c.min_rnr_timer = config_.min_rnr_timer;
  connect_qp(qp, c);
}

}  // namespace bifrost::sim
