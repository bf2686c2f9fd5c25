#pragma once
// The "flow_throughput" object of summary.json (docs/scenarios.md): the sampling interval and
// Jain's fairness index per run and over the intervals.
#include <nlohmann/json.hpp>

#include "bifrost/sim/metrics/flow_throughput.h"

namespace bifrost::sim::metrics::detail {

nlohmann::ordered_json flow_throughput_summary(const FlowThroughputSeries& series);

}  // namespace bifrost::sim::metrics::detail
