#include "bifrost/core/histogram.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "bifrost/core/error.h"

namespace bifrost {
namespace {

TEST(Histogram, BinsEdgesAndCounts) {
  Histogram h(0, 10, 5);  // bins [0,2) [2,4) [4,6) [6,8) [8,10)
  EXPECT_EQ(h.bins(), 5u);
  EXPECT_DOUBLE_EQ(h.bin_width(), 2);
  EXPECT_EQ(h.edges(), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  for (double x : {0.0, 1.9, 2.0, 5.0, 9.99, -0.1, 10.0, 12.0, 3.0}) h.add(x);
  EXPECT_EQ(h.count(0), 2u);  // 0, 1.9
  EXPECT_EQ(h.count(1), 2u);  // 2, 3
  EXPECT_EQ(h.count(2), 1u);  // 5
  EXPECT_EQ(h.count(3), 0u);
  EXPECT_EQ(h.count(4), 1u);  // 9.99
  EXPECT_EQ(h.underflow(), 1u);
  EXPECT_EQ(h.overflow(), 2u);  // hi itself is outside [lo, hi)
  EXPECT_EQ(h.total(), 9u);
  const std::vector<uint64_t> counts(h.counts().begin(), h.counts().end());
  EXPECT_EQ(counts, (std::vector<uint64_t>{2, 2, 1, 0, 1}));
}

TEST(Histogram, NegativeAndFractionalRange) {
  Histogram h(-1, 0.5, 3);  // [-1,-0.5) [-0.5,0) [0,0.5)
  EXPECT_DOUBLE_EQ(h.edge(1), -0.5);
  h.add(-1);
  h.add(-0.5);
  h.add(-0.25);
  h.add(0.49);
  EXPECT_EQ(h.count(0), 1u);
  EXPECT_EQ(h.count(1), 2u);
  EXPECT_EQ(h.count(2), 1u);
}

TEST(Histogram, ValuesOnEdgesLandInTheBinTheyStart) {
  // 0.1 and 0.7 are not binary fractions: (x - lo) / width lands a hair below or above an
  // edge for many bin counts (e.g. edge 2 of 5 bins divides to 1.9999999999999996).
  for (std::size_t bins = 1; bins <= 40; ++bins) {
    Histogram h(0.1, 0.7, bins);
    for (std::size_t i = 0; i < bins; ++i) h.add(h.edge(i));
    // The largest value below each upper edge belongs to the bin below that edge.
    for (std::size_t i = 1; i <= bins; ++i) h.add(std::nextafter(h.edge(i), 0.0));
    for (std::size_t i = 0; i < bins; ++i) {
      EXPECT_EQ(h.count(i), 2u) << "bin " << i << " of " << bins;
    }
    EXPECT_EQ(h.edge(bins), 0.7);  // exactly hi, not 0.1 + bins * width
    EXPECT_EQ(h.underflow() + h.overflow(), 0u);
  }
}

TEST(Histogram, InfinitiesAreOutOfRange) {
  Histogram h(0, 1, 2);
  h.add(std::numeric_limits<double>::infinity());
  h.add(-std::numeric_limits<double>::infinity());
  EXPECT_EQ(h.overflow(), 1u);
  EXPECT_EQ(h.underflow(), 1u);
}

TEST(Histogram, BadArgumentsThrow) {
  EXPECT_THROW(Histogram(1, 1, 4), Error);
  EXPECT_THROW(Histogram(2, 1, 4), Error);
  EXPECT_THROW(Histogram(0, 1, 0), Error);
  EXPECT_THROW(Histogram(0, std::numeric_limits<double>::infinity(), 4), Error);
  EXPECT_THROW(Histogram(std::numeric_limits<double>::quiet_NaN(), 1, 4), Error);
  EXPECT_THROW(
      Histogram(-std::numeric_limits<double>::max(), std::numeric_limits<double>::max(), 4), Error);
  try {
    Histogram(3, 2, 4);
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "Histogram: range [3, 2) is empty or not finite; need finite lo < hi");
  }

  Histogram h(0, 1, 4);
  EXPECT_THROW(h.add(std::numeric_limits<double>::quiet_NaN()), Error);
  EXPECT_EQ(h.total(), 0u);
  EXPECT_THROW(h.count(4), Error);
  EXPECT_THROW(h.edge(5), Error);
  EXPECT_NO_THROW(h.edge(4));
}

}  // namespace
}  // namespace bifrost
