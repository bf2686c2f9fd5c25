#pragma once
// The "fasr_pool" object of summary.json (docs/scenarios.md): the pool's size and its usage
// summed, averaged or maximised over the NICs.
#include <nlohmann/json.hpp>

#include "bifrost/sim/metrics/fasr_pool_metrics.h"

namespace bifrost::sim::metrics::detail {

nlohmann::ordered_json fasr_pool_summary(const FasrPoolMetrics& pool);

}  // namespace bifrost::sim::metrics::detail
