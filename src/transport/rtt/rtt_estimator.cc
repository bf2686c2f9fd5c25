#include "bifrost/transport/rtt/rtt_estimator.h"

#include <algorithm>

namespace bifrost::transport {

Time rtt_sample(Time t1_send, Time t4_ack_received, Time receiver_delay) {
  const Time rtt = (t4_ack_received - t1_send) - receiver_delay;
  return std::max(rtt, Time::zero());
}

void RttEstimator::add(Time sample) {
  latest_ = sample;
  min_ = std::min(min_, sample);
  if (samples_++ == 0) {
    srtt_ = sample;
    rttvar_ = sample / 2;
    return;
  }
  const Time deviation = srtt_ > sample ? srtt_ - sample : sample - srtt_;
  rttvar_ = (rttvar_ * 3 + deviation) / 4;
  srtt_ = (srtt_ * 7 + sample) / 8;
}

Time RttEstimator::rto(Time floor) const {
  if (samples_ == 0) return floor;
  return std::max(floor, srtt_ + rttvar_ * 4);
}

}  // namespace bifrost::transport
