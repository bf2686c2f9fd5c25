#include "bifrost/transport/rtt/rogue_uc_estimator.h"

#include <algorithm>

#include "bifrost/core/error.h"

namespace bifrost::transport {

RogueUcRttEstimator::RogueUcRttEstimator(Rate line_rate, unsigned sequence_bits)
    : line_rate_(line_rate), mask_((uint64_t{1} << sequence_bits) - 1) {
  if (sequence_bits < 1 || sequence_bits > 31) {
    throw Error("RoGUE UC RTT: sequence_bits {} must be 1..31", sequence_bits);
  }
}

uint64_t RogueUcRttEstimator::on_enqueue(const RogueBatch& batch) {
  if (batches_.size() >= mask_) {
    throw Error(
        "RoGUE UC RTT: {} batches outstanding, the most an echo's {}-value batch "
        "number can tell apart",
        batches_.size(), mask_ + 1);
  }
  Outstanding o{batch, std::nullopt};
  if (last_sig_ && last_sig_->batch + 1 == next_) o.previous_sig = last_sig_->t_sig;
  batches_.push_back(o);
  return next_++;
}

void RogueUcRttEstimator::on_send_completion(uint64_t batch, Time t_sig) {
  last_sig_ = LastSig{batch, t_sig};
  // Its successor may be enqueued already (two batches in the NIC at once).
  if (batch + 1 >= front() && batch + 1 < next_) batches_[batch + 1 - front()].previous_sig = t_sig;
}

RogueUcEcho RogueUcRttEstimator::on_echo(uint32_t wire_sequence, Time t_comp, Time t_response) {
  RogueUcEcho echo;
  const uint64_t distance = (wire_sequence - front()) & mask_;
  if (distance >= batches_.size()) return echo;  // not outstanding: late, duplicate or foreign
  echo.losses = static_cast<uint32_t>(distance);
  const Outstanding o = batches_[distance];
  batches_.erase(batches_.begin(), batches_.begin() + static_cast<std::ptrdiff_t>(distance) + 1);
  const Time t_start = o.previous_sig ? std::max(o.batch.t_enq, *o.previous_sig) : o.batch.t_enq;
  echo.batch = front() - 1;
  echo.rtt = clamp_rtt(t_comp - t_start - t_response - batch_serialization(o.batch, line_rate_));
  return echo;
}

std::size_t RogueUcRttEstimator::abandon_outstanding() {
  const std::size_t n = batches_.size();
  batches_.clear();
  return n;
}

std::optional<Time> RogueUcRttEstimator::oldest_enqueue() const {
  if (batches_.empty()) return std::nullopt;
  return batches_.front().batch.t_enq;
}

}  // namespace bifrost::transport
