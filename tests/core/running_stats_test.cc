#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "bifrost/core/error.h"
#include "bifrost/core/rng.h"
#include "bifrost/core/stats.h"

namespace bifrost {
namespace {

RunningStats of(std::initializer_list<double> xs) {
  RunningStats s;
  for (double x : xs) s.add(x);
  return s;
}

TEST(RunningStats, HandWorkedValues) {
  // Deviations from the mean 5 are -3 -1 -1 -1 0 0 2 4; their squares sum to 32.
  const RunningStats s = of({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_EQ(s.count(), 8u);
  EXPECT_DOUBLE_EQ(s.sum(), 40);
  EXPECT_DOUBLE_EQ(s.mean(), 5);
  EXPECT_DOUBLE_EQ(s.variance(), 4);  // 32 / 8
  EXPECT_DOUBLE_EQ(s.stddev(), 2);
  EXPECT_DOUBLE_EQ(s.sample_variance(), 32.0 / 7);
  EXPECT_DOUBLE_EQ(s.sample_stddev(), std::sqrt(32.0 / 7));
  EXPECT_DOUBLE_EQ(s.min(), 2);
  EXPECT_DOUBLE_EQ(s.max(), 9);
}

TEST(RunningStats, SingleSample) {
  const RunningStats s = of({-3.5});
  EXPECT_DOUBLE_EQ(s.mean(), -3.5);
  EXPECT_DOUBLE_EQ(s.variance(), 0);
  EXPECT_DOUBLE_EQ(s.min(), -3.5);
  EXPECT_DOUBLE_EQ(s.max(), -3.5);
  EXPECT_THROW(s.sample_variance(), Error);
}

TEST(RunningStats, EmptyHasCountAndSumButNoStatistics) {
  const RunningStats s;
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.count(), 0u);
  EXPECT_DOUBLE_EQ(s.sum(), 0);
  EXPECT_THROW(s.mean(), Error);
  EXPECT_THROW(s.variance(), Error);
  EXPECT_THROW(s.stddev(), Error);
  EXPECT_THROW(s.min(), Error);
  EXPECT_THROW(s.max(), Error);
  EXPECT_THROW(s.sample_variance(), Error);
}

TEST(RunningStats, StableWithALargeOffset) {
  // Spread 4 7 13 16 around 10 (squared deviations 36 9 9 36) on top of 1e9. The textbook
  // (sum x^2 - (sum x)^2 / n) / n gives -128 here in doubles; Welford gives 22.5.
  const RunningStats s = of({1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16});
  EXPECT_DOUBLE_EQ(s.mean(), 1e9 + 10);
  EXPECT_NEAR(s.variance(), 22.5, 1e-6);
  EXPECT_NEAR(s.sample_variance(), 30, 1e-6);
}

TEST(RunningStats, RejectsNonFiniteSamples) {
  RunningStats s;
  EXPECT_THROW(s.add(std::numeric_limits<double>::quiet_NaN()), Error);
  EXPECT_THROW(s.add(std::numeric_limits<double>::infinity()), Error);
  EXPECT_THROW(s.add(-std::numeric_limits<double>::infinity()), Error);
  EXPECT_TRUE(s.empty());
}

TEST(RunningStats, MergeEqualsAddingEverything) {
  const RunningStats left = of({2, 4, 4});
  RunningStats merged = left;
  merged.merge(of({4, 5, 5, 7, 9}));
  EXPECT_EQ(merged.count(), 8u);
  EXPECT_DOUBLE_EQ(merged.sum(), 40);
  EXPECT_DOUBLE_EQ(merged.mean(), 5);
  EXPECT_DOUBLE_EQ(merged.variance(), 4);
  EXPECT_DOUBLE_EQ(merged.min(), 2);
  EXPECT_DOUBLE_EQ(merged.max(), 9);
}

TEST(RunningStats, MergeWithEmptySides) {
  RunningStats a;
  a.merge(of({1, 3}));
  EXPECT_EQ(a.count(), 2u);
  EXPECT_DOUBLE_EQ(a.mean(), 2);
  EXPECT_DOUBLE_EQ(a.variance(), 1);
  EXPECT_DOUBLE_EQ(a.min(), 1);

  a.merge(RunningStats());
  EXPECT_EQ(a.count(), 2u);
  EXPECT_DOUBLE_EQ(a.variance(), 1);
  EXPECT_DOUBLE_EQ(a.max(), 3);
}

TEST(RunningStats, MergeOfManyPartsMatchesOneStream) {
  RandomStream r(11, "stats");
  RunningStats whole;
  RunningStats parts[4];
  for (int i = 0; i < 10'000; ++i) {
    const double x = 1e6 + r.exponential(250.0);
    whole.add(x);
    parts[i % 4].add(x);
  }
  RunningStats merged;
  for (const auto& p : parts) merged.merge(p);
  EXPECT_EQ(merged.count(), whole.count());
  EXPECT_NEAR(merged.mean(), whole.mean(), 1e-9 * whole.mean());
  EXPECT_NEAR(merged.variance(), whole.variance(), 1e-9 * whole.variance());
  EXPECT_DOUBLE_EQ(merged.min(), whole.min());
  EXPECT_DOUBLE_EQ(merged.max(), whole.max());
  // An exponential with mean 250 has standard deviation 250.
  EXPECT_NEAR(whole.stddev(), 250, 10);
}

}  // namespace
}  // namespace bifrost
