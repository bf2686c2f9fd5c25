#pragma once
// RunningStats: count, sum, mean, variance, min and max of a stream of samples in constant
// memory. Variance uses Welford's update (and Chan's formula to merge), which stays accurate
// when the mean is large next to the spread, where the sum-of-squares formula cancels.
#include <cstdint>

namespace bifrost {

class RunningStats {
 public:
  // Throws Error on NaN or infinity: such a sample is a bug upstream and would poison every
  // statistic.
  void add(double x);
  // Folds `other` in, as if its samples had been added to this one.
  void merge(const RunningStats& other);

  uint64_t count() const { return n_; }
  bool empty() const { return n_ == 0; }
  // Zero for no samples.
  double sum() const { return sum_; }

  // The statistics below describe the samples seen; with none they throw Error.
  double mean() const;
  // Population variance: mean squared deviation, dividing by n.
  double variance() const;
  double stddev() const;
  // Sample variance, dividing by n - 1; throws Error with fewer than 2 samples.
  double sample_variance() const;
  double sample_stddev() const;
  double min() const;
  double max() const;

 private:
  void require_samples(const char* what) const;

  uint64_t n_ = 0;
  double sum_ = 0;
  double mean_ = 0;
  double m2_ = 0;  // sum of squared deviations from the running mean
  double min_ = 0;
  double max_ = 0;
};

}  // namespace bifrost
