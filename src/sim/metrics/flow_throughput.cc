#include "bifrost/sim/metrics/flow_throughput.h"

#include <map>
#include <utility>

#include "bifrost/core/error.h"
#include "bifrost/core/fairness.h"

namespace bifrost::sim::metrics {

double FlowThroughputSeries::Sample::gbps() const {
  // bits * 1000 / ps, as ThroughputSeries::Sample::gbps.
  return static_cast<double>(bytes.bits()) * 1000.0 /
         static_cast<double>((end - start).picoseconds());
}

void FlowThroughputSeries::add(const Sample& sample) {
  if (sample.end <= sample.start) {
    throw Error(
        "flow throughput of flow {}: the sample ends at {} ps, not after its start at {} ps",
        sample.flow, sample.end.picoseconds(), sample.start.picoseconds());
  }
  if (sample.whole && sample.end - sample.start != interval_) {
    throw Error("flow throughput of flow {}: a whole sample lasts {} ps, not the interval's {} ps",
                sample.flow, (sample.end - sample.start).picoseconds(), interval_.picoseconds());
  }
  samples_.push_back(sample);
}

std::vector<FlowThroughputSeries::IntervalFairness> FlowThroughputSeries::fairness() const {
  std::map<std::pair<Time, Time>, std::vector<double>> by_interval;
  for (const Sample& s : samples_) {
    if (s.whole) by_interval[{s.start, s.end}].push_back(s.gbps());
  }
  std::vector<IntervalFairness> out;
  for (const auto& [interval, shares] : by_interval) {
    if (shares.size() < 2) continue;
    out.push_back({interval.first, interval.second, static_cast<uint32_t>(shares.size()),
                   jain_fairness_index(shares)});
  }
  return out;
}

std::optional<double> FlowThroughputSeries::run_fairness() const {
  struct Total {
    uint64_t bytes = 0;
    Time time;
  };
  std::map<uint64_t, Total> by_flow;
  for (const Sample& s : samples_) {
    Total& t = by_flow[s.flow];
    t.bytes += s.bytes.count();
    t.time += s.end - s.start;
  }
  if (by_flow.size() < 2) return std::nullopt;
  std::vector<double> means;
  means.reserve(by_flow.size());
  for (const auto& [flow, t] : by_flow) {
    means.push_back(static_cast<double>(t.bytes) / static_cast<double>(t.time.picoseconds()));
  }
  return jain_fairness_index(means);
}

}  // namespace bifrost::sim::metrics
