#include "bifrost/core/stats.h"

#include <cmath>

#include "bifrost/core/error.h"

namespace bifrost {

void RunningStats::add(double x) {
  if (!std::isfinite(x)) throw Error("RunningStats::add: sample {} is not a finite number", x);
  if (n_ == 0) {
    min_ = x;
    max_ = x;
  } else {
    min_ = std::fmin(min_, x);
    max_ = std::fmax(max_, x);
  }
  ++n_;
  sum_ += x;
  const double delta = x - mean_;
  mean_ += delta / static_cast<double>(n_);
  m2_ += delta * (x - mean_);
}

void RunningStats::merge(const RunningStats& other) {
  if (other.n_ == 0) return;
  if (n_ == 0) {
    *this = other;
    return;
  }
  const double na = static_cast<double>(n_);
  const double nb = static_cast<double>(other.n_);
  const double n = na + nb;
  const double delta = other.mean_ - mean_;
  mean_ += delta * (nb / n);
  m2_ += other.m2_ + delta * delta * (na * nb / n);
  n_ += other.n_;
  sum_ += other.sum_;
  min_ = std::fmin(min_, other.min_);
  max_ = std::fmax(max_, other.max_);
}

void RunningStats::require_samples(const char* what) const {
  if (n_ == 0) throw Error("RunningStats::{}: no samples yet; check count() first", what);
}

double RunningStats::mean() const {
  require_samples("mean");
  return mean_;
}

double RunningStats::variance() const {
  require_samples("variance");
  return m2_ / static_cast<double>(n_);
}

double RunningStats::stddev() const {
  return std::sqrt(variance());
}

double RunningStats::sample_variance() const {
  if (n_ < 2) {
    throw Error("RunningStats::sample_variance: needs at least 2 samples, have {}", n_);
  }
  return m2_ / static_cast<double>(n_ - 1);
}

double RunningStats::sample_stddev() const {
  return std::sqrt(sample_variance());
}

double RunningStats::min() const {
  require_samples("min");
  return min_;
}

double RunningStats::max() const {
  require_samples("max");
  return max_;
}

}  // namespace bifrost
