#pragma once
// The window a rate-based algorithm (DCQCN, TIMELY) gives the reliability layer: twice what
// `rate` sends in one RTT (the larger of the configured base RTT and the least RTT measured,
// Time::max() if none yet), at least one mss. The algorithms have no window of their own; this
// one keeps in-flight bytes, and so chunk sizes and ACK cadence, in step with the rate.
#include <algorithm>
#include <cstdint>

#include "bifrost/core/bytes.h"
#include "bifrost/core/rate.h"
#include "bifrost/core/time.h"

namespace bifrost::transport {

inline uint64_t rate_window_bytes(Rate rate, Time base_rtt, Time least_rtt, uint32_t mss) {
  const Time rtt = least_rtt == Time::max() ? base_rtt : std::max(base_rtt, least_rtt);
  return std::max<uint64_t>(2 * bytes_in(rtt, rate).count(), mss);
}

}  // namespace bifrost::transport
