#pragma once
// The RTT samples the Bifröst transport's senders took, one record per direction of each
// connection, as plain numbers for transport_rtt.csv (Fig. 4(b): how much the ACK path adds).
#include <cstdint>
#include <string>

namespace bifrost::sim::metrics {

struct TransportRttDirection {
  std::string src;  // the sending host's name
  std::string dst;
  uint32_t lane = 0;
  uint32_t priority = 0;
  uint64_t samples = 0;
  // Microseconds; percentiles by nearest rank within 0.1 % (ApproxPercentiles).
  double min_us = 0;
  double mean_us = 0;
  double p50_us = 0;
  double p99_us = 0;
  double p999_us = 0;
  double max_us = 0;
};

}  // namespace bifrost::sim::metrics
