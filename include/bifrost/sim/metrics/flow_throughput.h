#pragma once
// Per-flow goodput over time, and Jain's fairness index among the flows that ran through each
// whole sampling interval ([metrics] flow_throughput_interval). The simulator's flow sampler
// feeds it the bytes each flow's receiver holds at every interval edge; a flow's first sample
// starts at its start time and its last ends at its finish, and only samples that span a whole
// interval (`whole`) take part in the per-interval fairness, so flows starting or ending inside
// an interval do not look slow there.
#include <cstdint>
#include <optional>
#include <vector>

#include "bifrost/core/bytes.h"
#include "bifrost/core/time.h"

namespace bifrost::sim::metrics {

class FlowThroughputSeries {
 public:
  struct Sample {
    uint64_t flow = 0;
    Time start;
    Time end;
    Bytes bytes;         // received in [start, end)
    bool whole = false;  // the flow ran for the whole sampling interval [start, end)
    // The sender QP at `end` (soft RNIC only; nullopt while no CNP has cut it, or without
    // DCQCN): DCQCN's rate in Gb/s and its alpha.
    std::optional<double> dcqcn_gbps;
    std::optional<double> dcqcn_alpha;
    double gbps() const;
  };
  // Jain's index of the whole samples of one interval.
  struct IntervalFairness {
    Time start;
    Time end;
    uint32_t flows = 0;
    double jain = 1;
  };

  FlowThroughputSeries() = default;
  explicit FlowThroughputSeries(Time interval) : interval_(interval) {}

  // Throws Error for an end not after the start, or for a whole sample that does not last one
  // interval.
  void add(const Sample& sample);

  Time interval() const { return interval_; }
  const std::vector<Sample>& samples() const { return samples_; }
  // In time order; intervals with fewer than two whole samples have no fairness to speak of
  // and are left out.
  std::vector<IntervalFairness> fairness() const;
  // Jain's index of the flows' mean goodputs (bytes over the time sampled, each flow once);
  // nullopt with fewer than two flows.
  std::optional<double> run_fairness() const;

 private:
  Time interval_;
  std::vector<Sample> samples_;
};

}  // namespace bifrost::sim::metrics
