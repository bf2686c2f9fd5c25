#include "bifrost/core/fairness.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "bifrost/core/error.h"

namespace bifrost {
namespace {

double jain(std::vector<double> xs) {
  return jain_fairness_index(xs);
}

TEST(JainFairness, HandWorkedValues) {
  EXPECT_DOUBLE_EQ(jain({5, 5, 5, 5}), 1);
  EXPECT_DOUBLE_EQ(jain({1, 0, 0, 0}), 0.25);       // one takes all: 1 / n
  EXPECT_DOUBLE_EQ(jain({1, 2, 3}), 36.0 / 42);     // 6^2 / (3 * 14)
  EXPECT_DOUBLE_EQ(jain({10, 30}), 1600.0 / 2000);  // 40^2 / (2 * 1000)
  EXPECT_DOUBLE_EQ(jain({7}), 1);
}

TEST(JainFairness, IndependentOfScale) {
  EXPECT_DOUBLE_EQ(jain({1e-300, 2e-300, 3e-300}), 36.0 / 42);
  EXPECT_DOUBLE_EQ(jain({1e300, 2e300, 3e300}), 36.0 / 42);
}

TEST(JainFairness, AllZeroIsPerfectlyFair) {
  EXPECT_DOUBLE_EQ(jain({0, 0, 0}), 1);
}

TEST(JainFairness, BadInputThrows) {
  EXPECT_THROW(jain({}), Error);
  EXPECT_THROW(jain({1, -1}), Error);
  EXPECT_THROW(jain({1, std::numeric_limits<double>::quiet_NaN()}), Error);
  EXPECT_THROW(jain({1, std::numeric_limits<double>::infinity()}), Error);
}

}  // namespace
}  // namespace bifrost
