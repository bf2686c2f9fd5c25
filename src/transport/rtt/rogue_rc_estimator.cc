#include "bifrost/transport/rtt/rogue_rc_estimator.h"

#include <algorithm>

#include "bifrost/core/error.h"

namespace bifrost::transport {

uint64_t RogueRcRttEstimator::on_enqueue(const RogueBatch& batch) {
  batches_.push_back(batch);
  return next_++;
}

Time RogueRcRttEstimator::on_completion(Time t_comp) {
  if (batches_.empty()) throw Error("RoGUE RC RTT: a completion with no batch outstanding");
  return on_completion(t_comp, batches_.front().rate_limit);
}

Time RogueRcRttEstimator::on_completion(Time t_comp, Rate applied_rate) {
  if (batches_.empty()) throw Error("RoGUE RC RTT: a completion with no batch outstanding");
  RogueBatch batch = batches_.front();
  batch.rate_limit = applied_rate;
  batches_.pop_front();
  const bool idle_start = !previous_ || batch.t_enq >= previous_->t_comp - previous_->rtt;
  const Time t_start = idle_start ? batch.t_enq : previous_->t_comp - previous_->rtt;
  Time rtt = clamp_rtt(t_comp - t_start - batch_serialization(batch, line_rate_));
  if (idle_start_floor_) {
    if (idle_start && rtt > Time::zero() && (!floor_ || rtt < *floor_)) floor_ = rtt;
    if (floor_ && rtt < *floor_) {
      rtt = *floor_;
      ++floored_;
    }
  }
  previous_ = Previous{t_comp, rtt};
  return rtt;
}

void RogueRcRttEstimator::restart() {
  batches_.clear();
  previous_.reset();
}

}  // namespace bifrost::transport
