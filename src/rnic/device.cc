#include "bifrost/rnic/device.h"

#include "bifrost/core/error.h"

namespace bifrost::rnic {
namespace {

constexpr uint32_t kQpnMask = (1u << 24) - 1;

const DeviceConfig& checked(const DeviceConfig& config) {
  if (config.gids.empty()) {
    throw Error("device {}: the GID table is empty; give it at least one source address",
                config.name);
  }
  const uint32_t mtu = config.max_mtu;
  if (mtu < 256 || mtu > 4096 || (mtu & (mtu - 1)) != 0) {
    throw Error("device {}: max_mtu {} is invalid: use 256, 512, 1024, 2048 or 4096 bytes",
                config.name, mtu);
  }
  if (config.qp_transitions.recover < Time::zero() ||
      config.qp_transitions.activate_ready < Time::zero()) {
    throw Error("device {}: QP transition costs must not be negative", config.name);
  }
  if (config.slow_restart && !config.dcqcn) {
    throw Error("device {}: slow restart cuts the QP's DCQCN rate; it needs DCQCN on", config.name);
  }
  return config;
}

}  // namespace

Device::Device(world::Scheduler& scheduler, DeviceConfig config)
    : scheduler_(scheduler),
      config_(checked(config)),
      clock_(config_.clock_offset, config_.clock_drift_ppm),
      memory_(RandomStream(config_.seed, config_.name).fork("memory_keys")),
      engine_(recovery::make_engine(config_.recovery)),
      cache_(config_.context_cache, Bytes(engine_->footprint().per_qp_bytes)),
      notification_point_(config_.min_time_between_cnps, config_.cnp_scope) {
  if (config_.dcqcn) config_.data_path.ecn_capable = true;
  engine_->set_clock(scheduler_);
  if (config_.receive_pipeline) pipeline_.emplace(*config_.receive_pipeline);
  if (config_.context_cache.concurrent_fetches > 0) {
    fetches_.emplace(config_.context_cache.concurrent_fetches);
  }
  if (config_.per_priority_limiters > 0) {
    class_limiters_.emplace(config_.per_priority_limiters, config_.rate_limiter);
  }
  for (size_t i = 0; i < config_.dcqcn_reaction_groups; ++i) {
    dcqcn_groups_.push_back(
        DcqcnGroup{.rp = nullptr, .timer = {}, .limiter = RateLimiter(config_.rate_limiter)});
  }
  if (config_.data_path.zero_copy_transmit && !config_.complete_sends_at_transmit) {
    throw Error(
        "device {}: zero_copy_transmit needs complete_sends_at_transmit (a UC send must not "
        "complete while its packets still borrow the buffer)",
        config_.name);
  }
  if (config_.port_queue_packets == 0) {
    throw Error("device {}: port_queue_packets must be at least 1", config_.name);
  }
}

Device::~Device() {
  // Sends the port still held complete nowhere: the CQs go with this device, and their
  // handlers' owners (transport endpoints) may be gone already.
  held_completions_.clear();
  pending_departures_.clear();
  detach();
  for (auto& [qpn, qp] : qps_) {
    scheduler_.cancel(qp->scheduling().wake);
    scheduler_.cancel(qp->scheduling().dcqcn_timer);
  }
}

ProtectionDomain Device::alloc_pd() {
  return ProtectionDomain{next_pd_++};
}

const MemoryRegion& Device::reg_mr(ProtectionDomain pd, uint64_t base, uint64_t length,
                                   Access access, HostMemory* memory) {
  return memory_.register_region(pd, base, length, access, memory);
}

void Device::dereg_mr(uint32_t lkey) {
  memory_.deregister(lkey);
}

CompletionQueue& Device::create_cq(size_t entries) {
  if (entries == 0 || entries > config_.max_cq_entries) {
    throw Error("device {}: cannot create a CQ of {} entries: use 1..{}", config_.name, entries,
                config_.max_cq_entries);
  }
  cqs_.push_back(std::make_unique<CompletionQueue>(static_cast<uint32_t>(cqs_.size()), entries));
  return *cqs_.back();
}

QueuePair& Device::create_qp(ProtectionDomain pd, QpType type, CompletionQueue& send_cq,
                             CompletionQueue& recv_cq) {
  // 0 and 1 are the special QPs of InfiniBand (SMI, GSI); every other number is handed out in
  // turn, wrapping at 2^24 and skipping live ones.
  if (qps_.size() >= kQpnMask - 1) {
    throw Error("device {}: all {} QP numbers are in use", config_.name, kQpnMask - 1);
  }
  while (next_qpn_ < 2 || qps_.contains(next_qpn_)) next_qpn_ = (next_qpn_ + 1) & kQpnMask;
  const uint32_t qpn = next_qpn_;
  next_qpn_ = (next_qpn_ + 1) & kQpnMask;
  const QpLimits limits{config_.gids.size(), config_.max_mtu, 16};
  auto qp = std::make_unique<QueuePair>(qpn, type, pd, send_cq, recv_cq, limits, this);
  return *qps_.emplace(qpn, std::move(qp)).first->second;
}

void Device::destroy_qp(uint32_t qp_num) {
  const auto it = qps_.find(qp_num);
  if (it == qps_.end()) {
    throw Error("device {}: cannot destroy QP {}: no such QP", config_.name, qp_num);
  }
  QueuePair* qp = it->second.get();
  scheduler_.cancel(qp->scheduling().wake);
  scheduler_.cancel(qp->scheduling().dcqcn_timer);
  for (auto& ready : ready_) std::erase(ready, qp);
  std::erase_if(held_completions_,
                [qp_num](const HeldCompletion& h) { return h.wc.qp_num == qp_num; });
  qps_.erase(it);
}

QueuePair* Device::find_qp(uint32_t qp_num) {
  const auto it = qps_.find(qp_num);
  return it == qps_.end() ? nullptr : it->second.get();
}

}  // namespace bifrost::rnic
