#include "bifrost/transport/cc/swift.h"

#include <algorithm>

#include "bifrost/core/error.h"

namespace bifrost::transport {

SwiftParams swift_params_for(const CcParams& params) {
  SwiftParams p;
  p.target_delay = params.base_rtt;
  p.target_slack = params.base_rtt / 5;
  p.mss = params.mss;
  p.min_window = params.mss;
  p.packet_bytes = params.mtu;
  p.initial_window = std::max<uint64_t>(params.bdp_bytes, params.mss);
  p.max_window = 2 * p.initial_window;
  return p;
}

void SwiftParams::validate() const {
  if (target_delay <= Time::zero() || target_slack < Time::zero()) {
    throw Error("swift: target_delay must be positive and target_slack not negative");
  }
  if (mss == 0 || !(additive_increase > 0)) {
    throw Error("swift: mss and additive_increase ({}) must be positive", additive_increase);
  }
  if (!(beta >= 0) || !(max_decrease > 0 && max_decrease <= 1)) {
    throw Error("swift: beta ({}) must not be negative and max_decrease ({}) must be in (0, 1]",
                beta, max_decrease);
  }
  if (min_window == 0 || min_window > initial_window || initial_window > max_window) {
    throw Error("swift: need 0 < min_window ({}) <= initial_window ({}) <= max_window ({})",
                min_window, initial_window, max_window);
  }
  if (loss_gate) (void)LossGate(random_loss_tolerance, loss_gate_memory, packet_bytes);
}

Swift::Swift(const SwiftParams& params)
    : params_(params), window_(static_cast<double>(params.initial_window)) {
  params_.validate();
  if (params_.loss_gate) {
    gate_.emplace(params_.random_loss_tolerance, params_.loss_gate_memory, params_.packet_bytes);
  }
  clamp();
}

void Swift::on_ack(const AckEvent& event) {
  if (gate_) gate_->on_delivered(event.acked_bytes);
  if (!event.rtt) {
    return;  // without a delay signal the window holds (acked bytes alone say nothing here)
  }
  const Time rtt = *event.rtt;
  last_rtt_ = rtt;
  min_rtt_ = std::min(min_rtt_, rtt);
  const Time target = this->target();
  if (rtt <= target) {
    // One mss per window's worth of acknowledged bytes: +mss per RTT.
    window_ +=
        params_.additive_increase * params_.mss * static_cast<double>(event.acked_bytes) / window_;
  } else if (!decreased_ || event.now - last_decrease_ >= rtt) {
    const double excess = (rtt - target).seconds() / rtt.seconds();
    window_ *= std::max(1.0 - params_.beta * excess, 1.0 - params_.max_decrease);
    last_decrease_ = event.now;
    decreased_ = true;
  }
  clamp();
}

Time Swift::target() const {
  const Time base = params_.target_follows_min_rtt ? std::max(params_.target_delay, min_rtt_)
                                                   : params_.target_delay;
  return base + std::max(params_.target_slack, base / 5);
}

bool Swift::queue_seen() const {
  return last_rtt_ == Time::zero() || last_rtt_ > target();
}

void Swift::on_loss(Time now) {
  if (gate_ ? !gate_->on_loss(queue_seen()) : params_.loss_needs_queuing && !queue_seen()) {
    return;  // neither a queue nor more loss than corruption explains: resent, no cut
  }
  cut(now);
}

void Swift::on_timeout(Time now) {
  if (gate_) (void)gate_->on_loss(true);  // counts toward the loss rate; a timeout always cuts
  cut(now);
}

void Swift::cut(Time now) {
  if (params_.loss_to_minimum) {
    window_ = static_cast<double>(params_.min_window);
  } else if (!decreased_ || last_rtt_ == Time::zero() || now - last_decrease_ >= last_rtt_) {
    window_ *= 1.0 - params_.max_decrease;
  } else {
    return;  // this window already paid for its losses
  }
  last_decrease_ = now;
  decreased_ = true;
  clamp();
}

void Swift::clamp() {
  window_ = std::clamp(window_, static_cast<double>(params_.min_window),
                       static_cast<double>(params_.max_window));
}

}  // namespace bifrost::transport
