#include "bifrost/transport/rtt/rogue_rc_estimator.h"

#include <algorithm>

#include "bifrost/core/error.h"

namespace bifrost::transport {

RogueRcRttEstimator::RogueRcRttEstimator(Rate line_rate, uint32_t anchor_every, Bytes burst)
    : line_rate_(line_rate),
      floor_kind_(Floor::anchored),
      anchor_every_(anchor_every),
      burst_(burst) {
  if (anchor_every == 0) throw Error("RoGUE RC RTT: anchor_every must be positive");
}

uint64_t RogueRcRttEstimator::on_enqueue(const RogueBatch& batch) {
  const bool anchor = batches_.empty();
  if (anchor) {
    ++anchors_;
    chained_ = 0;
  } else {
    ++chained_;
  }
  batches_.push_back(Pending{batch, anchor});
  return next_++;
}

Time RogueRcRttEstimator::on_completion(Time t_comp) {
  if (batches_.empty()) throw Error("RoGUE RC RTT: a completion with no batch outstanding");
  return on_completion(t_comp, batches_.front().batch.rate_limit);
}

Time RogueRcRttEstimator::on_completion(Time t_comp, Rate applied_rate) {
  if (batches_.empty()) throw Error("RoGUE RC RTT: a completion with no batch outstanding");
  Pending pending = batches_.front();
  RogueBatch& batch = pending.batch;
  batch.rate_limit = applied_rate;
  batches_.pop_front();
  const bool idle_start = !previous_ || batch.t_enq >= previous_->t_comp - previous_->rtt;
  const Time t_start = idle_start ? batch.t_enq : previous_->t_comp - previous_->rtt;
  const Time on_nic = floor_kind_ == Floor::anchored && pending.anchor
                          ? idle_batch_serialization(batch, line_rate_, burst_)
                          : batch_serialization(batch, line_rate_);
  Time rtt = clamp_rtt(t_comp - t_start - on_nic);
  if (floor_kind_ != Floor::none) {
    const bool sets_floor =
        floor_kind_ == Floor::idle_start ? idle_start : pending.anchor && pending.trusted;
    if (sets_floor && rtt > Time::zero() && (!floor_ || rtt < *floor_)) floor_ = rtt;
    if (floor_ && rtt < *floor_) {
      rtt = *floor_;
      ++floored_;
    }
  }
  previous_ = Previous{t_comp, rtt};
  return rtt;
}

void RogueRcRttEstimator::distrust_oldest() {
  if (!batches_.empty()) batches_.front().trusted = false;
}

void RogueRcRttEstimator::restart() {
  batches_.clear();
  previous_.reset();
}

}  // namespace bifrost::transport
