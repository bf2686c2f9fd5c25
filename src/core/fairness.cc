#include "bifrost/core/fairness.h"

#include <cmath>

#include "bifrost/core/error.h"

namespace bifrost {

double jain_fairness_index(std::span<const double> shares) {
  if (shares.empty()) throw Error("jain_fairness_index: no shares given; need at least one");
  // Scaling by the largest share keeps the squares from overflowing or underflowing; the
  // index does not depend on scale.
  double largest = 0;
  for (double x : shares) {
    if (!(x >= 0) || std::isinf(x)) {
      throw Error("jain_fairness_index: share {} is not a finite number >= 0", x);
    }
    largest = std::fmax(largest, x);
  }
  if (largest == 0) return 1;
  double sum = 0;
  double sum_sq = 0;
  for (double x : shares) {
    const double y = x / largest;
    sum += y;
    sum_sq += y * y;
  }
  return sum * sum / (static_cast<double>(shares.size()) * sum_sq);
}

}  // namespace bifrost
