#pragma once
// Percentiles of a stream of samples, exact or within a relative error bound.
//
// Definition (both classes): nearest rank. Of n samples sorted ascending, percentile(p) is the
// k-th smallest, k = max(1, ceil(p / 100 * n)). So percentile(0) is the minimum, percentile(100)
// the maximum, and the answer is always one of the samples (ApproxPercentiles: within the bound
// of one). Example: of {15, 20, 35, 40, 50}, p = 30 gives k = 2, the value 20; p = 40 gives
// k = 2 as well; p = 41 gives k = 3, the value 35. p must be in [0, 100], otherwise Error.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bifrost {

// Keeps every sample; memory grows with the count. For tests and modest sample counts.
class ExactPercentiles {
 public:
  // Throws Error on NaN, which has no place in an order.
  void add(double x);
  void reserve(std::size_t n) { samples_.reserve(n); }
  void clear();

  std::size_t count() const { return samples_.size(); }
  bool empty() const { return samples_.empty(); }

  // Throws Error when empty. The first query after an add sorts (n log n); later queries are
  // constant time. Queries mutate the cache, so a shared instance needs outside locking.
  double percentile(double p) const;
  double min() const { return percentile(0); }
  double max() const { return percentile(100); }

 private:
  mutable std::vector<double> samples_;
  mutable bool sorted_ = true;
};

// A log-linear histogram (HDR-like) of non-negative values. Each power-of-two octave is cut
// into 2^k equal buckets, with k the smallest for which half a bucket is at most
// `relative_error` times the octave's lower edge; a percentile is answered with the middle of
// the bucket holding the ranked sample, found by walking the buckets. So for samples from DBL_MIN
// (about 2.2e-308) upwards, |percentile(p) - exact| <= relative_error * exact, with exact the
// nearest-rank value above. Zeros are counted exactly; count, min and max are exact.
//
// Memory depends on the range of values, not their count: 8 bytes * 2^k per octave between the
// smallest and largest positive sample (2^k = 64, 512 bytes, at the default 1%).
class ApproxPercentiles {
 public:
  static constexpr double kDefaultRelativeError = 0.01;
  // The smallest accepted bound: below it, buckets cost megabytes per octave.
  static constexpr double kMinRelativeError = 1e-6;

  // Throws Error unless kMinRelativeError <= relative_error < 0.5.
  explicit ApproxPercentiles(double relative_error = kDefaultRelativeError);

  // Throws Error unless x is finite and >= 0.
  void add(double x);
  // Folds `other` in; throws Error if its bucket layout differs (another relative error).
  void merge(const ApproxPercentiles& other);

  uint64_t count() const { return n_; }
  bool empty() const { return n_ == 0; }
  double relative_error() const { return relative_error_; }
  // Buckets allocated, the measure of memory use.
  std::size_t bucket_count() const { return counts_.size(); }

  // These throw Error when empty.
  double percentile(double p) const;
  double min() const;
  double max() const;

 private:
  // Grows the bucket window to cover octaves [lo, hi] (IEEE exponent fields).
  void cover(uint64_t lo, uint64_t hi);
  uint64_t octaves() const { return counts_.size() >> sub_bits_; }
  double bucket_middle(std::size_t slot) const;

  double relative_error_;
  int sub_bits_;  // k: log2 of the buckets per octave
  uint64_t n_ = 0;
  uint64_t zeros_ = 0;
  double min_ = 0;
  double max_ = 0;
  uint64_t first_octave_ = 0;     // exponent field of counts_[0]'s octave
  std::vector<uint64_t> counts_;  // octaves() * 2^k buckets, in value order
};

}  // namespace bifrost
