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
  const RogueBatch batch = batches_.front();
  batches_.pop_front();
  const Time t_start =
      previous_ ? std::max(batch.t_enq, previous_->t_comp - previous_->rtt) : batch.t_enq;
  const Time rtt = clamp_rtt(t_comp - t_start - batch_serialization(batch, line_rate_));
  previous_ = Previous{t_comp, rtt};
  return rtt;
}

void RogueRcRttEstimator::restart() {
  batches_.clear();
  previous_.reset();
}

}  // namespace bifrost::transport
