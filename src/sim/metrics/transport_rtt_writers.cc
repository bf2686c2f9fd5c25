#include <fmt/format.h>

#include <iterator>

#include "bifrost/sim/metrics/writers.h"

namespace bifrost::sim::metrics {

std::string transport_rtt_csv(const std::vector<TransportRttDirection>& directions) {
  std::string out = "src,dst,lane,priority,samples,min_us,mean_us,p50_us,p99_us,p999_us,max_us\n";
  auto it = std::back_inserter(out);
  for (const TransportRttDirection& d : directions) {
    fmt::format_to(it, "{},{},{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f}\n", d.src, d.dst,
                   d.lane, d.priority, d.samples, d.min_us, d.mean_us, d.p50_us, d.p99_us,
                   d.p999_us, d.max_us);
  }
  return out;
}

}  // namespace bifrost::sim::metrics
