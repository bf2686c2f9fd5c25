#pragma once
// Open-loop Poisson traffic, the arrival process of most datacenter transport evaluations: each
// source starts flows at exponentially distributed intervals, sizes drawn from a CDF,
// destinations uniform over the other candidate hosts.
//
// What "load" means is the caller's choice, stated by `reference`:
//  - LoadReference::per_source: `reference_rate` is each source's own link (the host link).
//    Every source offers load x reference_rate, so its mean inter-arrival time is
//    mean_size * 8 / (reference_rate * load).
//  - LoadReference::aggregate: `reference_rate` is one shared link (a bottleneck). All sources
//    together offer load x reference_rate, split evenly: each source's mean inter-arrival time
//    is sources.size() * mean_size * 8 / (reference_rate * load).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bifrost/core/rate.h"
#include "bifrost/core/rng.h"
#include "bifrost/core/time.h"
#include "bifrost/sim/workload/flow.h"
#include "bifrost/sim/workload/flow_size_cdf.h"

namespace bifrost::sim::workload {

enum class LoadReference { per_source, aggregate };

// When an open-loop generator stops. At least one bound must be set; with both, whichever
// comes first ends the list.
struct StopCondition {
  std::optional<Time> duration;       // flows arrive in [start, start + duration)
  std::optional<uint64_t> max_flows;  // total flows over all sources
};

struct PoissonSpec {
  std::vector<uint32_t> sources;       // distinct host indices that start flows
  std::vector<uint32_t> destinations;  // distinct candidates; never a flow's own source
  double load = 0;                     // > 0; may exceed 1 to study overload
  Rate reference_rate;
  LoadReference reference = LoadReference::per_source;
  Time start;
  StopCondition stop;
  uint8_t priority = 0;
  std::string tag;
};

// Mean time between two flow arrivals at one source, in picoseconds (not rounded).
double mean_interarrival_ps(const PoissonSpec& spec, const FlowSizeCdf& sizes);

// The flows in order of start time (ties in source order), ids 0, 1, ... in that order.
// Source s draws from rng.fork("source/<s>"): interval, then destination, then size, so a
// source's flows do not depend on which other sources exist. Throws Error for an invalid spec:
// no sources, a repeated source or destination, a source with no other destination, a priority of 8
// or more, a load that is not a positive finite number, a zero rate or no stop bound.
std::vector<Flow> generate_poisson(const PoissonSpec& spec, const FlowSizeCdf& sizes,
                                   const RandomStream& rng);

}  // namespace bifrost::sim::workload
