#pragma once
// perftest's latency row from one-way samples in microseconds (sorts them).
#include <vector>

#include "results.h"

namespace bifrost::perf {

SizeResult latency_result(std::vector<double>& samples, uint32_t bytes);
// Fills only the latency columns of `r` (t_min .. t_p999) from `samples`.
void set_latency_columns(SizeResult& r, std::vector<double>& samples);

}  // namespace bifrost::perf
