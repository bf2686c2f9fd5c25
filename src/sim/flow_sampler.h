#pragma once
// Samples every running flow's received bytes at [metrics] flow_throughput_interval into a
// metrics::FlowThroughputSeries. Flows are taken in as they start, including those a closed
// loop adds while the run goes, and let go after their finish.
#include <cstdint>
#include <vector>

#include "bifrost/core/time.h"
#include "bifrost/sim/metrics/flow_throughput.h"
#include "bifrost/sim/workload/flow.h"
#include "flow_carriers.h"

namespace bifrost::sim::detail {

class FlowSampler {
 public:
  // `flows` may grow during the run (ids are indices); `out` gets the samples.
  FlowSampler(Time interval, const std::vector<workload::Flow>& flows, FlowCarrier& carrier,
              metrics::FlowThroughputSeries& out);

  Time next() const { return next_; }
  // Samples at `now`, the interval edge next() named (or later, when the run ends between).
  void sample(Time now);

 private:
  struct Running {
    uint64_t id = 0;
    Time since;          // the start of its current sample
    uint64_t bytes = 0;  // received by `since`
  };
  void take_in_new_flows();

  Time interval_;
  const std::vector<workload::Flow>& flows_;
  FlowCarrier& carrier_;
  metrics::FlowThroughputSeries& out_;
  Time previous_;                  // the last interval edge sampled
  Time next_;                      // the next one
  std::size_t known_ = 0;          // flows_[0, known_) have been taken into waiting_ or running_
  std::vector<uint64_t> waiting_;  // not started yet, latest start first
  std::vector<Running> running_;
};

}  // namespace bifrost::sim::detail
