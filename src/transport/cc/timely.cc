#include "bifrost/transport/cc/timely.h"

#include <algorithm>

#include "bifrost/core/error.h"
#include "bifrost/transport/cc/rate_window.h"

namespace bifrost::transport {

TimelyParams timely_params_for(const CcParams& params) {
  TimelyParams p;
  p.line_rate = params.line_rate;
  p.additive_increase = Rate::bps(std::max<int64_t>(1, params.line_rate.bits_per_second() / 1000));
  p.min_rate = Rate::bps(std::max<int64_t>(1, params.line_rate.bits_per_second() / 100));
  p.base_rtt = params.base_rtt;
  p.mss = params.mss;
  return p;
}

void TimelyParams::validate() const {
  if (!(alpha > 0 && alpha <= 1) || !(beta > 0 && beta <= 1)) {
    throw Error("timely: alpha ({}) and beta ({}) must be in (0, 1]", alpha, beta);
  }
  if (t_low <= Time::zero() || t_high < t_low || min_rtt <= Time::zero() ||
      base_rtt <= Time::zero()) {
    throw Error(
        "timely: need 0 < t_low ({} us) <= t_high ({} us) and positive min_rtt and "
        "base_rtt",
        t_low.microseconds(), t_high.microseconds());
  }
  if (hai_threshold == 0 || hai_factor == 0 || mss == 0) {
    throw Error("timely: hai_threshold, hai_factor and mss must be positive");
  }
  if (min_rate <= Rate::bps(0) || additive_increase <= Rate::bps(0) || min_rate > line_rate) {
    throw Error(
        "timely: need positive min_rate and additive_increase, min_rate ({} b/s) at "
        "most the line rate ({} b/s)",
        min_rate.bits_per_second(), line_rate.bits_per_second());
  }
}

Timely::Timely(const TimelyParams& params) : params_(params), rate_(params.line_rate) {
  params_.validate();
}

void Timely::set_rate(double bps) {
  const double low = static_cast<double>(params_.min_rate.bits_per_second());
  const double high = static_cast<double>(params_.line_rate.bits_per_second());
  rate_ = Rate::bps(static_cast<int64_t>(std::clamp(bps, low, high)));
}

void Timely::on_ack(const AckEvent& event) {
  if (!event.rtt) return;
  const Time rtt = *event.rtt;
  least_rtt_ = std::min(least_rtt_, rtt);
  if (!have_prev_) {
    // The first sample only sets prev_rtt (Algorithm 1 needs a difference).
    prev_rtt_ = rtt;
    have_prev_ = true;
    return;
  }
  const double new_diff = rtt.microseconds() - prev_rtt_.microseconds();
  prev_rtt_ = rtt;
  rtt_diff_us_ = (1 - params_.alpha) * rtt_diff_us_ + params_.alpha * new_diff;
  const double gradient = rtt_diff_us_ / params_.min_rtt.microseconds();
  const auto rate = static_cast<double>(rate_.bits_per_second());
  const auto delta = static_cast<double>(params_.additive_increase.bits_per_second());
  if (rtt < params_.t_low) {
    negative_run_ = 0;
    set_rate(rate + delta);
    return;
  }
  if (rtt > params_.t_high) {
    negative_run_ = 0;
    set_rate(rate * (1 - params_.beta * (1 - params_.t_high.microseconds() / rtt.microseconds())));
    return;
  }
  if (gradient <= 0) {
    ++negative_run_;
    const uint32_t n = negative_run_ >= params_.hai_threshold ? params_.hai_factor : 1;
    set_rate(rate + n * delta);
    return;
  }
  negative_run_ = 0;
  set_rate(rate * (1 - params_.beta * gradient));
}

uint64_t Timely::window_bytes() const {
  return rate_window_bytes(rate_, params_.base_rtt, least_rtt_, params_.mss);
}

std::optional<Rate> Timely::pacing_rate() const {
  if (rate_ >= params_.line_rate) return std::nullopt;
  return rate_;
}

}  // namespace bifrost::transport
