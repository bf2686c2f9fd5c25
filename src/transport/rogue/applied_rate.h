#pragma once
// The rate the NIC's limiter applied to each byte of a direction, as RoGUE's software can know
// it. §3.3 measured that a new limit takes effect only after up to H = 160 KB more have been
// sent, and the RC estimator subtracts B_sig / rate_limit with "rate_limit being the current
// applied rate-limit": for a batch sent across a change that is the old rate for the bytes
// before the change lands and the new one after, not the rate requested when the batch was
// enqueued. The estimator chains each sample on the previous one (rtt/rogue_rc_estimator.h),
// so charging a batch at a rate the NIC had not applied yet moves every later sample by the
// difference: a cut moves them down and, once one reaches zero, there they stay (issue 24).
//
// Positions count units through the limiter (BatchWindow::bytes_through_limiter()'s unit); a
// limit requested when `through` units had left lands at through + delay.
#include <cstdint>
#include <deque>
#include <optional>

#include "bifrost/core/rate.h"

namespace bifrost::transport::rogue {

class AppliedRateModel {
 public:
  // `delay`: units sent after a request before its rate holds; `line_rate`: an unlimited
  // stretch's rate when a batch mixes limited and unlimited stretches.
  AppliedRateModel(uint64_t delay, Rate line_rate) : delay_(delay), line_rate_(line_rate) {}

  // A new limit (nullopt: unlimited) requested when `through` units had left the limiter.
  void on_request(uint64_t through, std::optional<Rate> rate);
  // The rate that sends units [first, first + units) in the time the applied rates take:
  // units over the sum of each stretch's time. nullopt when every stretch is unlimited.
  std::optional<Rate> effective_rate(uint64_t first, uint64_t units) const;
  // No batch starts before `position` any more: changes landed by then become the base.
  void forget_before(uint64_t position);

  size_t pending_changes() const { return changes_.size(); }

 private:
  struct Change {
    uint64_t at = 0;  // position where it lands
    std::optional<Rate> rate;
  };

  uint64_t delay_;
  Rate line_rate_;
  std::optional<Rate> base_;    // applied before the first change
  std::deque<Change> changes_;  // by position
};

}  // namespace bifrost::transport::rogue
