#include "bifrost/rnic/receive_pipeline.h"

#include <algorithm>
#include <utility>

#include "bifrost/core/error.h"

namespace bifrost::rnic {

ReceivePipeline::ReceivePipeline(ReceivePipelineConfig config) : config_(config), ring_(16) {
  if (config.service_rate <= Rate::bps(0)) {
    throw Error("receive pipeline service rate {} bit/s must be positive: use about line rate",
                config.service_rate.bits_per_second());
  }
  if (config.per_packet < Time::zero()) {
    throw Error("receive pipeline per-packet time {} ps is negative: use 0 or more",
                config.per_packet.picoseconds());
  }
  if (config.buffer == Bytes(0)) {
    throw Error("receive buffer of 0 bytes holds no packet: use at least one MTU");
  }
}

void ReceivePipeline::retire(Time now) {
  const std::size_t mask = ring_.size() - 1;
  while (size_ > 0 && ring_[head_].finish <= now) {
    occupancy_ -= Bytes(ring_[head_].bytes);
    head_ = (head_ + 1) & mask;
    --size_;
  }
}

Bytes ReceivePipeline::occupancy(Time now) {
  retire(now);
  return occupancy_;
}

std::optional<Time> ReceivePipeline::admit(Time now, uint32_t bytes, Time extra_service,
                                           Time ready_at) {
  retire(now);
  if (occupancy_ + Bytes(bytes) > config_.buffer) {
    ++dropped_;
    dropped_bytes_ += Bytes(bytes);
    return std::nullopt;
  }
  const Time stall = std::max(extra_service, Time::zero());
  const Time start = std::max({now, busy_until_, ready_at});
  busy_until_ =
      start + config_.per_packet + serialization_time(Bytes(bytes), config_.service_rate) + stall;
  if (size_ == ring_.size()) {
    // Grow by doubling, unrolling the ring so the oldest packet is at slot 0.
    std::vector<InService> bigger(ring_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = ring_[(head_ + i) & (ring_.size() - 1)];
    ring_ = std::move(bigger);
    head_ = 0;
  }
  ring_[(head_ + size_) & (ring_.size() - 1)] = {busy_until_, bytes};
  ++size_;
  occupancy_ += Bytes(bytes);
  max_occupancy_ = std::max(max_occupancy_, occupancy_);
  ++admitted_;
  if (stall > Time::zero()) {
    ++stalls_;
    total_stall_ += stall;
  }
  return busy_until_;
}

}  // namespace bifrost::rnic
