#include "bifrost/core/percentiles.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <vector>

#include "bifrost/core/error.h"
#include "percentile_rank.h"

namespace bifrost {
namespace {

// The bit pattern of a non-negative double grows with its value: the exponent field (bits 52
// to 62) numbers the octave, and the top k mantissa bits number the linear bucket inside it.
constexpr int kMantissaBits = 52;

uint64_t octave_of(uint64_t bits) {
  return bits >> kMantissaBits;
}

// Smallest k with 2^-(k+1) <= e: a bucket is 2^-k of its octave's lower edge wide, and its
// middle is within half that width of any value in it.
int sub_bits_for(double relative_error) {
  int k = 0;
  while (std::ldexp(1.0, -(k + 1)) > relative_error) ++k;
  return k;
}

}  // namespace

ApproxPercentiles::ApproxPercentiles(double relative_error) : relative_error_(relative_error) {
  if (!(relative_error >= kMinRelativeError && relative_error < 0.5)) {
    throw Error("ApproxPercentiles: relative error {} is outside [{}, 0.5)", relative_error,
                kMinRelativeError);
  }
  sub_bits_ = sub_bits_for(relative_error);
}

void ApproxPercentiles::add(double x) {
  if (!(x >= 0) || std::isinf(x)) {
    throw Error("ApproxPercentiles::add: sample {} is not a finite number >= 0", x);
  }
  min_ = n_ == 0 ? x : std::min(min_, x);
  max_ = n_ == 0 ? x : std::max(max_, x);
  ++n_;
  if (x == 0) {  // also -0.0, whose sign bit would misplace it
    ++zeros_;
    return;
  }
  const auto bits = std::bit_cast<uint64_t>(x);
  cover(octave_of(bits), octave_of(bits));
  ++counts_[(bits >> (kMantissaBits - sub_bits_)) - (first_octave_ << sub_bits_)];
}

void ApproxPercentiles::merge(const ApproxPercentiles& other) {
  if (other.sub_bits_ != sub_bits_) {
    throw Error(
        "ApproxPercentiles::merge: bucket layouts differ (relative errors {} and {}); merge "
        "histograms built with the same relative error",
        relative_error_, other.relative_error_);
  }
  if (other.n_ == 0) return;
  min_ = n_ == 0 ? other.min_ : std::min(min_, other.min_);
  max_ = n_ == 0 ? other.max_ : std::max(max_, other.max_);
  n_ += other.n_;
  zeros_ += other.zeros_;
  if (other.counts_.empty()) return;
  cover(other.first_octave_, other.first_octave_ + other.octaves() - 1);
  const std::size_t offset = (other.first_octave_ - first_octave_) << sub_bits_;
  for (std::size_t i = 0; i < other.counts_.size(); ++i) counts_[offset + i] += other.counts_[i];
}

void ApproxPercentiles::cover(uint64_t lo, uint64_t hi) {
  if (counts_.empty()) {
    first_octave_ = lo;
    counts_.assign((hi - lo + 1) << sub_bits_, 0);
    return;
  }
  if (lo >= first_octave_ && hi < first_octave_ + octaves()) return;
  // Whole octaves at a time, so the window grows at most once per octave of range.
  const uint64_t first = std::min(lo, first_octave_);
  const uint64_t last = std::max(hi, first_octave_ + octaves() - 1);
  std::vector<uint64_t> grown((last - first + 1) << sub_bits_, 0);
  std::copy(counts_.begin(), counts_.end(),
            grown.begin() + static_cast<std::ptrdiff_t>((first_octave_ - first) << sub_bits_));
  counts_ = std::move(grown);
  first_octave_ = first;
}

double ApproxPercentiles::bucket_middle(std::size_t slot) const {
  const uint64_t bucket = (first_octave_ << sub_bits_) + slot;
  const int shift = kMantissaBits - sub_bits_;
  const double lower = std::bit_cast<double>(bucket << shift);
  const double upper = std::bit_cast<double>((bucket + 1) << shift);
  return lower + (upper - lower) / 2;
}

double ApproxPercentiles::percentile(double p) const {
  if (n_ == 0) throw Error("ApproxPercentiles::percentile: no samples yet");
  const uint64_t k = detail::nearest_rank(p, n_, "ApproxPercentiles::percentile");
  // The extreme ranks are known exactly.
  if (k == 1) return min_;
  if (k == n_) return max_;
  if (k <= zeros_) return 0;
  uint64_t seen = zeros_;
  for (std::size_t slot = 0; slot < counts_.size(); ++slot) {
    seen += counts_[slot];
    // Clamping to the exact extremes only moves the answer towards the ranked sample.
    if (seen >= k) return std::clamp(bucket_middle(slot), min_, max_);
  }
  return max_;  // unreachable: the counts sum to n_ - zeros_ and k <= n_
}

double ApproxPercentiles::min() const {
  if (n_ == 0) throw Error("ApproxPercentiles::min: no samples yet");
  return min_;
}

double ApproxPercentiles::max() const {
  if (n_ == 0) throw Error("ApproxPercentiles::max: no samples yet");
  return max_;
}

}  // namespace bifrost
