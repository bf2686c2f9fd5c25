#include "bifrost/transport/cc/vegas.h"

#include <algorithm>

#include "bifrost/core/error.h"

namespace bifrost::transport {
namespace {

using detail::u128;

double effective_alpha(const VegasParams& p) {
  return p.literal ? kRoguePaperAlpha : p.alpha;
}
double effective_beta(const VegasParams& p) {
  return p.literal ? kRoguePaperBeta : p.beta;
}

}  // namespace

void VegasParams::validate() const {
  if (packet_bytes == 0) throw Error("vegas: packet_bytes must be positive");
  if (initial_window_packets == 0 || min_window_packets == 0 ||
      min_window_packets > initial_window_packets ||
      uint64_t{initial_window_packets} * packet_bytes > max_window_bytes) {
    throw Error(
        "vegas: need 0 < min_window_packets ({}) <= initial_window_packets ({}) and the initial "
        "window within max_window_bytes ({})",
        min_window_packets, initial_window_packets, max_window_bytes);
  }
  if (!literal && !(alpha >= 0 && alpha <= beta)) {
    throw Error("vegas: alpha ({}) must be 0..beta ({}); set literal for the paper's 4 and 2",
                alpha, beta);
  }
  if (!(loss_decrease > 0 && loss_decrease < 1)) {
    throw Error("vegas: loss_decrease ({}) must lie strictly between 0 and 1", loss_decrease);
  }
  if (base_rtt_floor < Time::zero()) throw Error("vegas: base_rtt_floor must not be negative");
  if (line_rate <= Rate::bps(0) || rate_step <= Rate::bps(0)) {
    throw Error("vegas: line_rate and rate_step must be positive");
  }
}

VegasParams vegas_params_for(const CcParams& params) {
  VegasParams p;
  p.packet_bytes = params.mss;
  p.line_rate = params.line_rate;
  p.rate_step = params.line_rate / 10;
  p.max_window_bytes =
      std::max<uint64_t>(4 * params.bdp_bytes, uint64_t{p.initial_window_packets} * p.packet_bytes);
  return p;
}

double vegas_diff(uint64_t cwnd_bytes, Time rtt, Time base, uint32_t packet_bytes) {
  if (rtt <= base) return 0;
  return static_cast<double>(cwnd_bytes) * static_cast<double>((rtt - base).picoseconds()) /
         (static_cast<double>(rtt.picoseconds()) * packet_bytes);
}

VegasStep vegas_decision(double diff, const VegasParams& params) {
  const double alpha = effective_alpha(params);
  const double beta = effective_beta(params);
  // As written, the decrease rule comes first and wins where both hold.
  if (diff > beta) return VegasStep::decrease;
  if (diff < alpha) return VegasStep::increase;
  return VegasStep::hold;
}

Rate vegas_target_rate(uint64_t cwnd_bytes, Time base_rtt, const VegasParams& params) {
  const u128 wire = static_cast<u128>(cwnd_bytes) * (params.packet_bytes + params.header_bytes) /
                    params.packet_bytes;
  return rate_of(Bytes(static_cast<uint64_t>(wire)), base_rtt);
}

Rate step_rate_toward(Rate current, Rate target, Rate step, Rate line_rate) {
  const Rate next =
      target > current ? std::min(target, current + step) : std::max(target, current - step);
  return std::min(next, line_rate);
}

Vegas::Vegas(const VegasParams& params)
    : params_(params),
      cwnd_(uint64_t{params.initial_window_packets} * params.packet_bytes),
      rate_(params.line_rate) {
  params_.validate();
}

void Vegas::on_ack(const AckEvent& event) {
  if (!event.rtt) return;
  const Time rtt = *event.rtt;
  const Time floor = params_.base_rtt_floor;
  base_rtt_ = base_rtt_ == Time::zero() ? std::max(rtt, floor) : std::min(base_rtt_, rtt);
  base_rtt_ = std::max(base_rtt_, floor);
  last_rtt_ = rtt;
  const double diff = vegas_diff(cwnd_, rtt, base_rtt_, params_.packet_bytes);
  if (slow_start_) {
    if (diff > effective_beta(params_)) {
      end_slow_start(rtt);
    } else if (!doubled_ || event.now - last_doubling_ >= rtt) {
      // This sample's batch started (now - rtt) after the last doubling: a new RTT.
      set_window(2 * cwnd_);
      doubled_ = true;
      last_doubling_ = event.now;
    }
  } else {
    switch (vegas_decision(diff, params_)) {
      case VegasStep::increase:
        set_window(cwnd_ + params_.packet_bytes);
        break;
      case VegasStep::decrease:
        set_window(cwnd_ - std::min<uint64_t>(cwnd_, params_.packet_bytes));
        break;
      case VegasStep::hold:
        break;
    }
  }
  update_rate();
}

void Vegas::end_slow_start(Time rtt) {
  slow_start_ = false;
  // Linux Vegas's exit: what the base RTT would carry at this throughput, plus one packet.
  const u128 carried = static_cast<u128>(cwnd_) * static_cast<u128>(base_rtt_.picoseconds()) /
                       static_cast<u128>(rtt.picoseconds());
  const uint64_t packets = static_cast<uint64_t>(carried) / params_.packet_bytes + 1;
  set_window(std::min(cwnd_, packets * params_.packet_bytes));
}

void Vegas::on_loss(Time /*now*/) {
  slow_start_ = false;
  set_window(static_cast<uint64_t>(static_cast<double>(cwnd_) * params_.loss_decrease));
  update_rate();
}

void Vegas::on_timeout(Time /*now*/) {
  slow_start_ = true;
  doubled_ = false;
  set_window(uint64_t{params_.initial_window_packets} * params_.packet_bytes);
  update_rate();
}

void Vegas::set_window(uint64_t bytes) {
  const uint64_t min = uint64_t{params_.min_window_packets} * params_.packet_bytes;
  cwnd_ = std::clamp(bytes, min, params_.max_window_bytes);
}

void Vegas::update_rate() {
  if (base_rtt_ == Time::zero()) return;  // no base RTT yet: no target
  const Rate target = vegas_target_rate(cwnd_, pacing_rtt(), params_);
  rate_ = step_rate_toward(rate_, target, params_.rate_step, params_.line_rate);
}

Time Vegas::pacing_rtt() const {
  if (params_.rate_basis == VegasRateBasis::base_rtt) return base_rtt_;
  return std::max(base_rtt_, last_rtt_);
}

std::optional<Rate> Vegas::pacing_rate() const {
  if (rate_ >= params_.line_rate) return std::nullopt;
  return rate_;
}

}  // namespace bifrost::transport
