#include "bifrost/rnic/cc/dcqcn.h"

#include <algorithm>
#include <cmath>

#include "bifrost/core/error.h"

namespace bifrost::rnic {
namespace {

void validate(const DcqcnConfig& c) {
  if (c.line_rate <= Rate{}) {
    throw Error("DCQCN line_rate must be positive, got {} b/s", c.line_rate.bits_per_second());
  }
  if (c.min_rate <= Rate{} || c.min_rate > c.line_rate) {
    throw Error("DCQCN min_rate must be in (0, line_rate = {} b/s], got {} b/s",
                c.line_rate.bits_per_second(), c.min_rate.bits_per_second());
  }
  if (!(c.g > 0.0 && c.g <= 1.0)) throw Error("DCQCN g must be in (0, 1], got {}", c.g);
  if (!(c.initial_alpha >= 0.0 && c.initial_alpha <= 1.0)) {
    throw Error("DCQCN initial_alpha must be in [0, 1], got {}", c.initial_alpha);
  }
  const auto positive = [](Time t, const char* name) {
    if (t <= Time::zero())
      throw Error("DCQCN {} must be positive, got {} ps", name, t.picoseconds());
  };
  positive(c.alpha_update_period, "alpha_update_period");
  positive(c.increase_period, "increase_period");
  if (c.rate_reduce_monitor_period < Time::zero()) {
    throw Error("DCQCN rate_reduce_monitor_period must not be negative, got {} ps",
                c.rate_reduce_monitor_period.picoseconds());
  }
  if (c.increase_bytes == 0) throw Error("DCQCN increase_bytes must be at least 1");
  if (c.additive_increase < Rate{} || c.hyper_increase < Rate{}) {
    throw Error("DCQCN additive_increase and hyper_increase must not be negative");
  }
}

}  // namespace

DcqcnReactionPoint::DcqcnReactionPoint(const DcqcnConfig& config)
    : config_(config), rc_(config.line_rate), rt_(config.line_rate) {
  validate(config_);
  alpha_base_ = config_.initial_alpha;
}

double DcqcnReactionPoint::alpha_at(Time t) const {
  if (!active_) return alpha_base_;
  // Alpha changes only at decreases, so its decay is a closed form of whole periods since the
  // last one: the same value whichever times advance() was called at.
  const int64_t periods = (t - alpha_since_) / config_.alpha_update_period;
  return alpha_base_ * std::pow(1.0 - config_.g, static_cast<double>(periods));
}

double DcqcnReactionPoint::alpha() const {
  return alpha_at(now_);
}

bool DcqcnReactionPoint::idle_at_line_rate() const {
  return rc_ == config_.line_rate && rt_ == config_.line_rate && !decrease_pending_;
}

Time DcqcnReactionPoint::next_timer() const {
  if (!active_ || idle_at_line_rate()) return Time::max();
  const Time pending =
      decrease_pending_ ? last_decrease_ + config_.rate_reduce_monitor_period : Time::max();
  return std::min(pending, next_increase_);
}

void DcqcnReactionPoint::decrease(Time at) {
  const double a = alpha_at(at);
  rt_ = rc_;
  const double reduced = static_cast<double>(rc_.bits_per_second()) * (1.0 - a / 2.0);
  rc_ = std::max(Rate::bps(static_cast<int64_t>(reduced)), config_.min_rate);
  alpha_base_ = (1.0 - config_.g) * a + config_.g;
  alpha_since_ = at;
  last_decrease_ = at;
  decrease_pending_ = false;
  // The increase machinery starts over from this decrease.
  next_increase_ = at + config_.increase_period;
  timer_stage_ = 0;
  byte_stage_ = 0;
  bytes_since_ = 0;
}

void DcqcnReactionPoint::increase(bool by_timer) {
  ++(by_timer ? timer_stage_ : byte_stage_);
  const uint64_t f = config_.fast_recovery_stages;
  const uint64_t low = std::min(timer_stage_, byte_stage_);
  const uint64_t high = std::max(timer_stage_, byte_stage_);
  const Rate line = config_.line_rate;
  if (high <= f) {
    // Fast recovery: Rt stays, Rc closes half the gap.
  } else if (low > f) {
    // Hyper increase; the stage multiplier is capped before it can overflow the product.
    const Rate step = config_.hyper_increase;
    const uint64_t i = low - f;
    const uint64_t room = static_cast<uint64_t>((line - rt_).bits_per_second());
    const bool to_line =
        step.bits_per_second() > 0 && i > room / static_cast<uint64_t>(step.bits_per_second());
    rt_ = to_line ? line : std::min(line, rt_ + step * static_cast<int64_t>(i));
  } else {
    rt_ = std::min(line, rt_ + config_.additive_increase);
  }
  // Rounded up so that Rc reaches Rt (and line rate) instead of stopping 1 b/s short.
  rc_ = std::clamp(Rate::bps((rt_.bits_per_second() + rc_.bits_per_second() + 1) / 2),
                   config_.min_rate, line);
}

void DcqcnReactionPoint::advance(Time now) {
  now = std::max(now, now_);
  now_ = now;
  if (!active_) return;
  while (true) {
    if (idle_at_line_rate()) {
      // Further increase events change nothing but the timer stage: skip them in one step.
      if (next_increase_ <= now) {
        const int64_t n = (now - next_increase_) / config_.increase_period + 1;
        timer_stage_ += static_cast<uint64_t>(n);
        next_increase_ += config_.increase_period * n;
      }
      return;
    }
    const Time pending =
        decrease_pending_ ? last_decrease_ + config_.rate_reduce_monitor_period : Time::max();
    // A decrease due at the same instant as an increase goes first, as a CNP would.
    if (pending <= now && pending <= next_increase_) {
      decrease(pending);
    } else if (next_increase_ <= now) {
      next_increase_ += config_.increase_period;
      increase(true);
    } else {
      return;
    }
  }
}

void DcqcnReactionPoint::on_cnp(Time now) {
  advance(now);
  now = now_;
  if (!active_) {
    active_ = true;
    alpha_since_ = now;
    decrease(now);
    return;
  }
  if (decrease_pending_) return;  // folded into the decrease already waiting
  if (now - last_decrease_ >= config_.rate_reduce_monitor_period) {
    decrease(now);
  } else {
    decrease_pending_ = true;
  }
}

void DcqcnReactionPoint::on_bytes_sent(Time now, uint64_t bytes) {
  advance(now);
  if (!active_) return;
  // Bytes sent before the first increase event still count: they are since the decrease.
  const uint64_t b = config_.increase_bytes;
  if (bytes >= b - bytes_since_) {
    bytes -= b - bytes_since_;
    bytes_since_ = 0;
    increase(false);
    // Whole chunks: at line rate more events change nothing but the byte stage.
    const uint64_t chunks = bytes / b;
    for (uint64_t k = 0; k < chunks; ++k) {
      if (idle_at_line_rate()) {
        byte_stage_ += chunks - k;
        break;
      }
      increase(false);
    }
    bytes %= b;
  }
  bytes_since_ += bytes;
}

DcqcnNotificationPoint::DcqcnNotificationPoint(Time min_time_between_cnps, CnpScope scope)
    : interval_(min_time_between_cnps), scope_(scope) {
  if (interval_ < Time::zero()) {
    throw Error("DCQCN min_time_between_cnps must not be negative, got {} ps",
                interval_.picoseconds());
  }
}

bool DcqcnNotificationPoint::on_ce_packet(uint32_t qp, Time now) {
  const auto [it, first] = last_cnp_.try_emplace(scope_ == CnpScope::per_qp ? qp : 0, now);
  if (first) return true;
  if (now - it->second < interval_) return false;
  it->second = now;
  return true;
}

}  // namespace bifrost::rnic
