#include "bifrost/sim/nic_pair.h"

#include <fmt/format.h>

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
  connect(a_, b_);
  connect(b_, a_);
}

void NicPair::build(Side& side, int index) {
  DeviceConfig dc = config_.device;
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

void NicPair::connect(Side& side, const Side& peer) {
  QueuePair& qp = *side.qp;
  const bool ud = config_.type == QpType::ud;
  QpAttr attr;
  attr.state = QpState::init;
  attr.pkey_index = 0;
  attr.port = 1;
  attr.qkey = config_.qkey;
  attr.access_flags = Access::remote_write | Access::remote_read;
  QpAttrMask mask = QpAttrMask::state | QpAttrMask::pkey_index | QpAttrMask::port |
                    (ud ? QpAttrMask::qkey : QpAttrMask::access_flags);
  qp.modify(attr, mask);

  attr.state = QpState::rtr;
  mask = QpAttrMask::state;
  if (!ud) {
    attr.av.dest_ip = peer.device->gids().front();
    attr.path_mtu = config_.mtu;
    attr.dest_qp_num = peer.qp->qp_num();
    attr.rq_psn = config_.first_psn;
    mask =
        mask | QpAttrMask::av | QpAttrMask::path_mtu | QpAttrMask::dest_qp_num | QpAttrMask::rq_psn;
    if (config_.type == QpType::rc) {
      attr.max_dest_rd_atomic = 16;
      attr.min_rnr_timer = config_.min_rnr_timer;
      mask = mask | QpAttrMask::max_dest_rd_atomic | QpAttrMask::min_rnr_timer;
    }
  }
  qp.modify(attr, mask);

  attr.state = QpState::rts;
  attr.sq_psn = config_.first_psn;
  mask = QpAttrMask::state | QpAttrMask::sq_psn;
  if (config_.type == QpType::rc) {
    attr.timeout = config_.timeout;
    attr.retry_cnt = config_.retry_cnt;
    attr.rnr_retry = config_.rnr_retry;
    attr.max_rd_atomic = 16;
    mask = mask | QpAttrMask::timeout | QpAttrMask::retry_cnt | QpAttrMask::rnr_retry |
           QpAttrMask::max_rd_atomic;
  }
  qp.modify(attr, mask);
}

}  // namespace bifrost::sim
