#include "bifrost/sim/probe.h"

#include <array>

#include "bifrost/core/error.h"
#include "bifrost/rnic/connect.h"
#include "bifrost/rnic/work_request.h"

namespace bifrost::sim {

namespace {

// The probe's QP connection to `peer`: RC defaults (67 ms timeout, 7 retries), a source port
// derived from its QPN.
rnic::QpConnection connection_to(const rnic::Device& peer, uint32_t peer_qpn, const ProbeSpec& s) {
  rnic::QpConnection c;
  c.dest_ip = peer.gids().front();
  c.dest_qp_num = peer_qpn;
  c.path_mtu = s.mtu;
  c.access = rnic::Access::remote_write;
  c.traffic_class = static_cast<uint8_t>(s.priority << 5);  // DSCP = priority * 8
  c.udp_sport = 0;
  c.max_rd_atomic = 1;
  return c;
}

}  // namespace

Probe::Probe(EventKernel& kernel, rnic::Device& src, rnic::Device& dst, const ProbeSpec& spec)
    : kernel_(kernel), spec_(spec) {
  if (spec.probe.interval <= Time::zero()) throw Error("probe {}: needs an interval", spec.name);
  series_.workload = spec.name;
  series_.src = src.name();
  series_.dst = dst.name();
  // A zero-byte WRITE touches no memory at either end, so no region is registered.
  cq_ = &src.create_cq(kMaxOutstanding * 2);
  rnic::CompletionQueue& dst_cq = dst.create_cq(16);
  qp_ = &src.create_qp(src.alloc_pd(), rnic::QpType::rc, *cq_, *cq_);
  rnic::QueuePair& responder = dst.create_qp(dst.alloc_pd(), rnic::QpType::rc, dst_cq, dst_cq);
  rnic::connect_qp(*qp_, connection_to(dst, responder.qp_num(), spec));
  rnic::connect_qp(responder, connection_to(src, qp_->qp_num(), spec));
  cq_->set_handler([this] {
    if (poll_scheduled_) return;
    poll_scheduled_ = true;
    kernel_.after(Time::zero(), [this] { poll(); });
  });
  kernel_.at(spec.probe.start, [this] { post(); });
}

bool Probe::finished() const {
  return broken_ || (kernel_.now() >= spec_.probe.stop && outstanding_.empty());
}

void Probe::post() {
  if (kernel_.now() >= spec_.probe.stop || broken_) return;
  if (outstanding_.size() >= kMaxOutstanding) {
    ++series_.skipped;
  } else {
    rnic::SendWr wr;
    wr.wr_id = series_.posted;
    wr.opcode = rnic::WrOpcode::rdma_write;
    wr.sge = rnic::Sge{0, 0, 0};
    wr.signaled = true;
    qp_->post_send(wr);
    outstanding_.push_back(kernel_.now());
    ++series_.posted;
  }
  kernel_.after(spec_.probe.interval, [this] { post(); });
}

void Probe::poll() {
  poll_scheduled_ = false;
  std::array<rnic::WorkCompletion, 64> batch;
  for (;;) {
    const size_t n = cq_->poll(batch.size(), batch);
    for (size_t i = 0; i < n; ++i) {
      const Time posted = outstanding_.front();
      outstanding_.pop_front();
      if (batch[i].status != rnic::WcStatus::success) {
        ++series_.failed;
        broken_ = true;
        continue;
      }
      series_.probes.push_back({posted, kernel_.now() - posted});
    }
    if (n < batch.size()) return;
  }
}

}  // namespace bifrost::sim
