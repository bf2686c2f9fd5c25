#include "bifrost/sim/metrics/time_series.h"

#include "bifrost/core/error.h"

namespace bifrost::sim::metrics {

double ThroughputSeries::Sample::gbps() const {
  // bits / (ps * 1e-12 s) / 1e9 = bits * 1000 / ps, one rounding instead of three.
  return static_cast<double>(bytes.bits()) * 1000.0 /
         static_cast<double>((end - start).picoseconds());
}

uint32_t ThroughputSeries::add_link(std::string name) {
  if (!taken_.insert(name).second)
    throw Error("throughput: link \"{}\" is already registered", name);
  names_.push_back(std::move(name));
  last_.emplace_back();
  return static_cast<uint32_t>(names_.size() - 1);
}

void ThroughputSeries::sample(uint32_t link, Time at, Bytes cumulative) {
  if (link >= names_.size()) throw Error("throughput: no link with index {}", link);
  Last& last = last_[link];
  if (last.seen) {
    if (at <= last.at) {
      throw Error("throughput of {}: sample at {} ps is not after the previous one at {} ps",
                  names_[link], at.picoseconds(), last.at.picoseconds());
    }
    if (cumulative < last.cumulative) {
      throw Error("throughput of {}: the byte counter went down from {} to {}", names_[link],
                  last.cumulative.count(), cumulative.count());
    }
    samples_.push_back({link, last.at, at, cumulative - last.cumulative});
  }
  last = {true, at, cumulative};
}

uint32_t QueueSeries::add_queue(std::string name) {
  if (!taken_.insert(name).second)
    throw Error("queue length: queue \"{}\" is already registered", name);
  names_.push_back(std::move(name));
  return static_cast<uint32_t>(names_.size() - 1);
}

void QueueSeries::sample(uint32_t queue, Time at, Bytes length) {
  if (queue >= names_.size()) throw Error("queue length: no queue with index {}", queue);
  samples_.push_back({queue, at, length});
}

}  // namespace bifrost::sim::metrics
