#pragma once
// The nearest-rank rule shared by the percentile estimators (see percentiles.h).
#include <cstdint>

namespace bifrost::detail {

// 1-based rank of percentile p among n >= 1 samples: max(1, ceil(p / 100 * n)). Forgives a
// relative 1e-12 of floating-point error before rounding up, so that p = 16.1 of 1000 samples
// is rank 161 as in exact arithmetic (in doubles the product is 161.00000000000003). Throws
// Error, naming `who`, unless 0 <= p <= 100.
uint64_t nearest_rank(double p, uint64_t n, const char* who);

}  // namespace bifrost::detail
