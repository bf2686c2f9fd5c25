#pragma once
// The "probes" object of summary.json (docs/scenarios.md): per probe workload, how many were
// posted, completed, failed and skipped, and their RTT's min, p10, p50, p90, p99 and max in us.
#include <nlohmann/json.hpp>
#include <vector>

#include "bifrost/sim/metrics/probe_rtt.h"

namespace bifrost::sim::metrics::detail {

nlohmann::ordered_json probe_rtt_summary(const std::vector<ProbeRttSeries>& series);

}  // namespace bifrost::sim::metrics::detail
