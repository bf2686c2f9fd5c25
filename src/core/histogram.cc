#include "bifrost/core/histogram.h"

#include <cmath>

#include "bifrost/core/error.h"

namespace bifrost {

Histogram::Histogram(double lo, double hi, std::size_t bins) : lo_(lo), hi_(hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi) || !std::isfinite(hi - lo)) {
    throw Error("Histogram: range [{}, {}) is empty or not finite; need finite lo < hi", lo, hi);
  }
  if (bins == 0) throw Error("Histogram: needs at least one bin over [{}, {})", lo, hi);
  width_ = (hi - lo) / static_cast<double>(bins);
  counts_.assign(bins, 0);
}

double Histogram::edge_unchecked(std::size_t i) const {
  // The last edge is hi itself: lo + width * bins may round away from it.
  return i == counts_.size() ? hi_ : lo_ + width_ * static_cast<double>(i);
}

double Histogram::edge(std::size_t i) const {
  if (i > counts_.size()) {
    throw Error("Histogram::edge: index {} is beyond the last edge {}", i, counts_.size());
  }
  return edge_unchecked(i);
}

std::vector<double> Histogram::edges() const {
  std::vector<double> out(counts_.size() + 1);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = edge_unchecked(i);
  return out;
}

uint64_t Histogram::count(std::size_t i) const {
  if (i >= counts_.size()) {
    throw Error("Histogram::count: bin {} does not exist; there are {} bins", i, counts_.size());
  }
  return counts_[i];
}

void Histogram::add(double x) {
  if (std::isnan(x)) throw Error("Histogram::add: sample is NaN");
  ++total_;
  if (x < lo_) {
    ++underflow_;
    return;
  }
  if (x >= hi_) {
    ++overflow_;
    return;
  }
  // The division may land one bin off an edge; nudge so that bins agree with edge().
  const std::size_t last = counts_.size() - 1;
  auto i = static_cast<std::size_t>((x - lo_) / width_);
  if (i > last) i = last;
  if (x < edge_unchecked(i)) {
    --i;
  } else if (i < last && x >= edge_unchecked(i + 1)) {
    ++i;
  }
  ++counts_[i];
}

}  // namespace bifrost
