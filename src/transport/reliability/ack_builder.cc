#include "bifrost/transport/reliability/ack_builder.h"

#include <algorithm>
#include <limits>

namespace bifrost::transport {

AckBuilder::AckBuilder(AckCoalescing coalescing) {
  set_coalescing(coalescing);
}

void AckBuilder::set_coalescing(AckCoalescing coalescing) {
  coalescing_ = coalescing;
  coalescing_.wqes = std::clamp<uint32_t>(coalescing_.wqes, 1, kSoftAckMaxEntries);
}

bool AckBuilder::fits(const AckedWqe& wqe) const {
  if (ack_.count == kSoftAckMaxEntries) return false;
  if (!wqe.is_send || !has_send_) return true;
  constexpr uint64_t kSpan = std::numeric_limits<uint32_t>::max();
  const uint64_t least = std::min(least_send_, wqe.global);
  const uint64_t most = std::max(most_send_, wqe.global);
  return most - least <= kSpan;
}

std::optional<AckTrigger> AckBuilder::add(const AckedWqe& wqe, uint32_t bytes,
                                          Time received_nic_time, bool hint, bool out_of_order,
                                          bool ce) {
  ack_.entries[ack_.count++] = wqe;
  ack_.ecn_echo = ack_.ecn_echo || ce;
  bytes_ += bytes;
  newest_received_ = received_nic_time;
  if (wqe.is_send) {
    least_send_ = has_send_ ? std::min(least_send_, wqe.global) : wqe.global;
    most_send_ = has_send_ ? std::max(most_send_, wqe.global) : wqe.global;
    has_send_ = true;
  }
  if (out_of_order) return AckTrigger::out_of_order;
  if (hint) return AckTrigger::hint;
  if (ack_.count >= coalescing_.wqes) return AckTrigger::wqes;
  if (bytes_ >= coalescing_.bytes) return AckTrigger::bytes;
  return std::nullopt;
}

SoftAck AckBuilder::take(uint32_t connection, Time post_nic_time, AckTrigger trigger) {
  SoftAck out = ack_;
  out.connection = connection;
  out.timing_entry = static_cast<uint8_t>(out.count - 1);
  const Time delay = std::max(post_nic_time - newest_received_, Time::zero());
  out.ack_delay_ns = static_cast<uint32_t>(
      std::min<int64_t>(delay.picoseconds() / 1000, std::numeric_limits<uint32_t>::max()));
  ++counts_.by[static_cast<size_t>(trigger)];
  ack_ = SoftAck{};
  bytes_ = 0;
  has_send_ = false;
  return out;
}

}  // namespace bifrost::transport
