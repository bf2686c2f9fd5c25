#include <fmt/format.h>

#include <iterator>

#include "bifrost/sim/metrics/cc_trace.h"

namespace bifrost::sim::metrics {

std::string cc_trace_csv(const std::vector<CcTraceRow>& rows) {
  std::string out =
      "time_us,host,peer,lane,priority,window,event,cwnd_bytes,rtt_us,base_rtt_us,held_off,"
      "estimate_gbps,rate_gbps\n";
  auto it = std::back_inserter(out);
  for (const CcTraceRow& r : rows) {
    const double estimate = r.sample && r.rtt > Time::zero()
                                ? static_cast<double>(r.cwnd_bytes) * 8 / r.rtt.seconds() / 1e9
                                : 0.0;
    fmt::format_to(it, "{:.3f},{},{},{},{},{},{},{},{:.3f},{:.3f},{:d},{:.4f},{:.4f}\n",
                   r.at.microseconds(), r.host, r.peer, r.lane, r.priority,
                   r.read ? "read" : "write", r.sample ? "sample" : "rate", r.cwnd_bytes,
                   r.rtt.microseconds(), r.base_rtt.microseconds(), r.held_off, estimate,
                   static_cast<double>(r.rate_bps) / 1e9);
  }
  return out;
}

}  // namespace bifrost::sim::metrics
