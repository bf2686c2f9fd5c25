#include "percentile_rank.h"

#include <algorithm>
#include <cmath>

#include "bifrost/core/error.h"

namespace bifrost::detail {

uint64_t nearest_rank(double p, uint64_t n, const char* who) {
  if (!(p >= 0 && p <= 100)) throw Error("{}: percentile {} is outside [0, 100]", who, p);
  const double exact = p * static_cast<double>(n) / 100;
  const auto k = static_cast<uint64_t>(std::ceil(exact - exact * 1e-12));
  return std::clamp<uint64_t>(k, 1, n);
}

}  // namespace bifrost::detail
