#include "bifrost/transport/cc/dcqcn.h"

#include <algorithm>

#include "bifrost/core/bytes.h"
#include "bifrost/core/error.h"
#include "bifrost/transport/cc/rate_window.h"

namespace bifrost::transport {

namespace {

// The notification point keeps its interval per QP; a connection is one flow here.
constexpr uint32_t kFlow = 0;

}  // namespace

DcqcnParams dcqcn_params_for(const CcParams& params) {
  DcqcnParams p;
  p.rp.line_rate = params.line_rate;
  // mlx5's 1 Mb/s floor, unless the line itself is slower.
  p.rp.min_rate = std::min(p.rp.min_rate, params.line_rate);
  p.base_rtt = params.base_rtt;
  p.mss = params.mss;
  return p;
}

void DcqcnParams::validate() const {
  (void)rnic::DcqcnReactionPoint(rp);  // throws for an impossible reaction point
  (void)rnic::DcqcnNotificationPoint(min_time_between_cnps);  // ... or CNP interval
  if (base_rtt <= Time::zero() || mss == 0) {
    throw Error("dcqcn: base_rtt and mss must be positive");
  }
}

Dcqcn::Dcqcn(const DcqcnParams& params)
    : params_(params), rp_(params.rp), np_(params.min_time_between_cnps) {}

void Dcqcn::on_ack(const AckEvent& event) {
  if (event.rtt) min_rtt_ = std::min(min_rtt_, *event.rtt);
  // Bytes first: they were sent before the CE mark this ACK reports was seen.
  if (event.acked_bytes > 0) {
    rp_.on_bytes_sent(event.now, event.acked_bytes);
  } else {
    rp_.advance(event.now);
  }
  if (event.ecn && np_.on_ce_packet(kFlow, event.now)) {
    rp_.on_cnp(event.now);
    ++cnps_;
  }
}

uint64_t Dcqcn::window_bytes() const {
  return rate_window_bytes(rp_.rate(), params_.base_rtt, min_rtt_, params_.mss);
}

std::optional<Rate> Dcqcn::pacing_rate() const {
  if (rp_.rate() >= params_.rp.line_rate) return std::nullopt;
  return rp_.rate();
}

}  // namespace bifrost::transport
