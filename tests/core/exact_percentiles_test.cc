#include <gtest/gtest.h>

#include <limits>

#include "bifrost/core/error.h"
#include "bifrost/core/percentiles.h"

namespace bifrost {
namespace {

ExactPercentiles of(std::initializer_list<double> xs) {
  ExactPercentiles e;
  for (double x : xs) e.add(x);
  return e;
}

TEST(ExactPercentiles, NearestRankHandWorked) {
  // Sorted: 15 20 35 40 50. Rank k = max(1, ceil(p / 100 * 5)).
  const ExactPercentiles e = of({35, 20, 50, 15, 40});
  EXPECT_DOUBLE_EQ(e.percentile(0), 15);    // k = 1
  EXPECT_DOUBLE_EQ(e.percentile(5), 15);    // 0.25 -> 1
  EXPECT_DOUBLE_EQ(e.percentile(20), 15);   // 1 -> 1
  EXPECT_DOUBLE_EQ(e.percentile(21), 20);   // 1.05 -> 2
  EXPECT_DOUBLE_EQ(e.percentile(30), 20);   // 1.5 -> 2
  EXPECT_DOUBLE_EQ(e.percentile(40), 20);   // 2 -> 2
  EXPECT_DOUBLE_EQ(e.percentile(50), 35);   // 2.5 -> 3
  EXPECT_DOUBLE_EQ(e.percentile(100), 50);  // 5
  EXPECT_DOUBLE_EQ(e.min(), 15);
  EXPECT_DOUBLE_EQ(e.max(), 50);
}

TEST(ExactPercentiles, DecimalPercentilesRankAsInExactArithmetic) {
  // 1..1000: p = 16.1 is rank 161 exactly, but 16.1 * 1000 / 100 in doubles is
  // 161.00000000000003, which a bare ceil would take to rank 162.
  ExactPercentiles e;
  for (int i = 1000; i >= 1; --i) e.add(i);
  EXPECT_DOUBLE_EQ(e.percentile(16.1), 161);
  EXPECT_DOUBLE_EQ(e.percentile(64.4), 644);
  EXPECT_DOUBLE_EQ(e.percentile(99.9), 999);
  EXPECT_DOUBLE_EQ(e.percentile(99.91), 1000);
  EXPECT_DOUBLE_EQ(e.percentile(0.1), 1);
  EXPECT_DOUBLE_EQ(e.percentile(0.11), 2);
  EXPECT_DOUBLE_EQ(e.percentile(50), 500);
  EXPECT_DOUBLE_EQ(e.percentile(99), 990);
  EXPECT_DOUBLE_EQ(e.percentile(57.3), 573);
}

TEST(ExactPercentiles, RepeatedQueriesAndLaterAdds) {
  ExactPercentiles e = of({3, 1, 2});
  EXPECT_DOUBLE_EQ(e.percentile(50), 2);
  EXPECT_DOUBLE_EQ(e.percentile(50), 2);
  e.add(0);  // now 0 1 2 3: rank 2 for p = 50
  EXPECT_DOUBLE_EQ(e.percentile(50), 1);
  e.add(10);  // 0 1 2 3 10: rank 3
  EXPECT_DOUBLE_EQ(e.percentile(50), 2);
  EXPECT_DOUBLE_EQ(e.max(), 10);
  EXPECT_EQ(e.count(), 5u);
}

TEST(ExactPercentiles, SingleSampleAnswersEverything) {
  const ExactPercentiles e = of({7});
  EXPECT_DOUBLE_EQ(e.percentile(0), 7);
  EXPECT_DOUBLE_EQ(e.percentile(37.5), 7);
  EXPECT_DOUBLE_EQ(e.percentile(100), 7);
}

TEST(ExactPercentiles, KeepsDuplicatesAndNegatives) {
  const ExactPercentiles e = of({-1, -1, 4, 4, 4, -8});
  EXPECT_DOUBLE_EQ(e.percentile(0), -8);
  EXPECT_DOUBLE_EQ(e.percentile(50), -1);  // rank 3 of -8 -1 -1 4 4 4
  EXPECT_DOUBLE_EQ(e.percentile(51), 4);
}

TEST(ExactPercentiles, ClearEmpties) {
  ExactPercentiles e = of({1, 2});
  e.clear();
  EXPECT_TRUE(e.empty());
  EXPECT_THROW(e.percentile(50), Error);
  e.add(5);
  EXPECT_DOUBLE_EQ(e.percentile(50), 5);
}

TEST(ExactPercentiles, BadArgumentsThrow) {
  ExactPercentiles empty;
  EXPECT_THROW(empty.percentile(50), Error);
  EXPECT_THROW(empty.min(), Error);

  const ExactPercentiles e = of({1, 2, 3});
  EXPECT_THROW(e.percentile(-0.001), Error);
  EXPECT_THROW(e.percentile(100.001), Error);
  EXPECT_THROW(e.percentile(std::numeric_limits<double>::quiet_NaN()), Error);
  try {
    e.percentile(101);
    FAIL() << "no throw";
  } catch (const Error& err) {
    EXPECT_STREQ(err.what(), "ExactPercentiles::percentile: percentile 101 is outside [0, 100]");
  }

  ExactPercentiles f;
  EXPECT_THROW(f.add(std::numeric_limits<double>::quiet_NaN()), Error);
  EXPECT_TRUE(f.empty());
}

}  // namespace
}  // namespace bifrost
