#pragma once
// Histogram: counts of samples in equal-width bins over [lo, hi), plus the samples below lo
// (underflow) and at or above hi (overflow). Bin i holds exactly [edge(i), edge(i + 1)), with
// the edges as reported by edge(), so a sample equal to an edge lands in the bin it starts.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace bifrost {

class Histogram {
 public:
  // Throws Error unless lo and hi are finite, lo < hi, hi - lo is finite and bins >= 1.
  Histogram(double lo, double hi, std::size_t bins);

  // Throws Error on NaN; infinities count as underflow or overflow.
  void add(double x);

  double lo() const { return lo_; }
  double hi() const { return hi_; }
  std::size_t bins() const { return counts_.size(); }
  double bin_width() const { return width_; }
  // Edge i for i in [0, bins()]: edge(0) == lo(), edge(bins()) == hi(). Throws Error beyond.
  double edge(std::size_t i) const;
  // All bins() + 1 edges, ascending.
  std::vector<double> edges() const;

  // Samples in bin i; throws Error for i >= bins().
  uint64_t count(std::size_t i) const;
  std::span<const uint64_t> counts() const { return counts_; }
  uint64_t underflow() const { return underflow_; }
  uint64_t overflow() const { return overflow_; }
  // Every sample added, in bins or not.
  uint64_t total() const { return total_; }

 private:
  double edge_unchecked(std::size_t i) const;

  double lo_;
  double hi_;
  double width_;
  std::vector<uint64_t> counts_;
  uint64_t underflow_ = 0;
  uint64_t overflow_ = 0;
  uint64_t total_ = 0;
};

}  // namespace bifrost
