#pragma once
// perftest's latency row from one-way samples in microseconds (sorts them).
#include <vector>

#include "results.h"

namespace bifrost::perf {

SizeResult latency_result(std::vector<double>& samples, uint32_t bytes);

}  // namespace bifrost::perf
