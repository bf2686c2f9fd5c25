#include "bifrost/transport/cc/dctcp.h"

#include <algorithm>
#include <limits>

#include "bifrost/core/error.h"

namespace bifrost::transport {

DctcpParams dctcp_params_for(const CcParams& params) {
  DctcpParams p;
  p.mss = params.mss;
  p.max_window_bytes =
      std::max<uint64_t>(4 * params.bdp_bytes, uint64_t{p.initial_window_packets} * params.mss);
  return p;
}

void DctcpParams::validate() const {
  if (!(g > 0 && g <= 1)) throw Error("dctcp: g ({}) must be in (0, 1]", g);
  if (mss == 0 || min_window_packets == 0 || min_window_packets > initial_window_packets) {
    throw Error("dctcp: need a positive mss and 0 < min_window ({}) <= initial_window ({}) packets",
                min_window_packets, initial_window_packets);
  }
  if (max_window_bytes < uint64_t{initial_window_packets} * mss) {
    throw Error("dctcp: max_window ({} B) is below the initial window ({} packets of {} B)",
                max_window_bytes, initial_window_packets, mss);
  }
}

Dctcp::Dctcp(const DctcpParams& params)
    : params_(params),
      cwnd_(static_cast<double>(uint64_t{params.initial_window_packets} * params.mss)),
      ssthresh_(std::numeric_limits<double>::infinity()),
      window_end_(static_cast<uint64_t>(cwnd_)) {
  params_.validate();
}

void Dctcp::clamp() {
  const auto low = static_cast<double>(uint64_t{params_.min_window_packets} * params_.mss);
  cwnd_ = std::clamp(cwnd_, low, static_cast<double>(params_.max_window_bytes));
}

void Dctcp::cut() {
  if (cut_this_window_) return;
  cut_this_window_ = true;
  cwnd_ *= 1 - alpha_ / 2;
  clamp();
  ssthresh_ = cwnd_;
}

void Dctcp::on_ack(const AckEvent& event) {
  window_acked_ += event.acked_bytes;
  if (event.ecn) {
    window_marked_ += event.acked_bytes;
    cut();
  } else if (cwnd_ < ssthresh_) {
    cwnd_ += static_cast<double>(event.acked_bytes);
  } else {
    cwnd_ += static_cast<double>(params_.mss) * static_cast<double>(event.acked_bytes) / cwnd_;
  }
  clamp();
  if (window_acked_ >= window_end_) {
    const double marked = static_cast<double>(window_marked_) / static_cast<double>(window_acked_);
    alpha_ = (1 - params_.g) * alpha_ + params_.g * marked;
    window_acked_ = 0;
    window_marked_ = 0;
    window_end_ = static_cast<uint64_t>(cwnd_);
    cut_this_window_ = false;
  }
}

void Dctcp::on_loss(Time) {
  cut();
}

void Dctcp::on_timeout(Time) {
  ssthresh_ = std::max(cwnd_ * (1 - alpha_ / 2),
                       static_cast<double>(uint64_t{params_.min_window_packets} * params_.mss));
  cwnd_ = 0;
  clamp();
}

}  // namespace bifrost::transport
