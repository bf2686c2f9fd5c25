#include "bifrost/core/percentiles.h"

#include <algorithm>
#include <cmath>

#include "bifrost/core/error.h"
#include "percentile_rank.h"

namespace bifrost {

void ExactPercentiles::add(double x) {
  if (std::isnan(x)) throw Error("ExactPercentiles::add: sample is NaN");
  if (sorted_ && !samples_.empty() && x < samples_.back()) sorted_ = false;
  samples_.push_back(x);
}

void ExactPercentiles::clear() {
  samples_.clear();
  sorted_ = true;
}

double ExactPercentiles::percentile(double p) const {
  if (samples_.empty()) throw Error("ExactPercentiles::percentile: no samples yet");
  const uint64_t k = detail::nearest_rank(p, samples_.size(), "ExactPercentiles::percentile");
  if (!sorted_) {
    std::sort(samples_.begin(), samples_.end());
    sorted_ = true;
  }
  return samples_[k - 1];
}

}  // namespace bifrost
