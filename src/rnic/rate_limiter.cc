#include "bifrost/rnic/rate_limiter.h"

#include <algorithm>

#include "bifrost/core/error.h"

namespace bifrost::rnic {

RateLimiter::RateLimiter(RateLimiterConfig config) : config_(config) {}

void RateLimiter::set_rate(Rate rate) {
  if (rate < Rate::bps(0)) {
    throw Error("rate limit {} bit/s is negative: use a positive rate, or 0 for unlimited",
                rate.bits_per_second());
  }
  if (config_.change_delay == Bytes(0)) {
    pending_.reset();
    apply(rate);
    return;
  }
  // A newer request replaces the pending one without restarting the counter (see the header).
  if (!pending_) until_change_ = config_.change_delay;
  pending_ = rate;
}

void RateLimiter::apply(Rate rate) {
  // Leaving the limited mode forgives any pacing debt: an unlimited QP owes nothing.
  if (rate == unlimited()) next_ = std::min(next_, last_start_);
  rate_ = rate;
  burst_time_ = limited() ? serialization_time(config_.burst, rate_) : Time::zero();
}

Time RateLimiter::next_send_time() const {
  return limited() ? std::max(next_, last_start_) : last_start_;
}

void RateLimiter::on_send(Time now, uint32_t bytes) {
  transmitted_ += Bytes(bytes);
  last_start_ = std::max(last_start_, now);
  if (limited()) {
    // The cap on how far the clock may lag `now` is what bounds an idle limiter's credit.
    next_ = std::max(next_, now - burst_time_) + serialization_time(Bytes(bytes), rate_);
  } else {
    next_ = now;
  }
  if (pending_) {
    // This packet started before the boundary, so it was charged at the old rate above.
    until_change_ -= Bytes(bytes);
    if (until_change_ == Bytes(0)) {
      const Rate rate = *pending_;
      pending_.reset();
      apply(rate);
    }
  }
}

RateLimiterBank::RateLimiterBank(std::size_t count, RateLimiterConfig config)
    : limiters_(count, RateLimiter(config)) {
  if (count == 0) throw Error("a rate limiter bank needs at least one limiter");
}

void RateLimiterBank::check_index(std::size_t index) const {
  if (index >= limiters_.size()) {
    throw Error("rate limiter {} does not exist: the bank has limiters 0..{}", index,
                limiters_.size() - 1);
  }
}

RateLimiter& RateLimiterBank::limiter(std::size_t index) {
  check_index(index);
  return limiters_[index];
}

const RateLimiter& RateLimiterBank::limiter(std::size_t index) const {
  check_index(index);
  return limiters_[index];
}

}  // namespace bifrost::rnic
