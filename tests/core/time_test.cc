#include "bifrost/core/time.h"

#include <gtest/gtest.h>

namespace bifrost {
namespace {

TEST(Time, UnitConstructorsCountPicoseconds) {
  EXPECT_EQ(Time::ps(7).picoseconds(), 7);
  EXPECT_EQ(Time::ns(3).picoseconds(), 3'000);
  EXPECT_EQ(Time::us(3).picoseconds(), 3'000'000);
  EXPECT_EQ(Time::ms(3).picoseconds(), 3'000'000'000);
  EXPECT_EQ(Time::s(3).picoseconds(), 3'000'000'000'000);
  EXPECT_EQ(Time::s(-2).picoseconds(), -2'000'000'000'000);
  EXPECT_EQ(Time().picoseconds(), 0);
  EXPECT_EQ(Time::zero().picoseconds(), 0);
  EXPECT_EQ(Time::max().picoseconds(), 9'223'372'036'854'775'807);
  static_assert(Time::us(1) == Time::ns(1'000));
}

TEST(Time, ConvertsToFloatingUnits) {
  EXPECT_DOUBLE_EQ(Time::ps(1'500).nanoseconds(), 1.5);
  EXPECT_DOUBLE_EQ(Time::ns(2'500).microseconds(), 2.5);
  EXPECT_DOUBLE_EQ(Time::ms(250).seconds(), 0.25);
}

TEST(Time, Arithmetic) {
  EXPECT_EQ(Time::ns(2) + Time::ps(5), Time::ps(2'005));
  EXPECT_EQ(Time::ns(2) - Time::ns(5), Time::ps(-3'000));
  EXPECT_EQ(Time::ns(2) * 4, Time::ns(8));
  EXPECT_EQ(4 * Time::ns(2), Time::ns(8));
  EXPECT_EQ(Time::ps(7) / 2, Time::ps(3));  // integer division truncates
  EXPECT_EQ(Time::ps(-7) / 2, Time::ps(-3));
  EXPECT_EQ(Time::us(1) / Time::ns(3), 333);
  EXPECT_EQ(-Time::ns(1), Time::ps(-1'000));

  Time t = Time::ns(1);
  t += Time::ps(20);
  EXPECT_EQ(t, Time::ps(1'020));
  t -= Time::ps(1'021);
  EXPECT_EQ(t, Time::ps(-1));
}

TEST(Time, Compares) {
  EXPECT_LT(Time::ps(999), Time::ns(1));
  EXPECT_GT(Time::ps(-1), -Time::ns(1));
  EXPECT_LE(Time::ns(1), Time::ps(1'000));
  EXPECT_NE(Time::ns(1), Time::ps(1'001));
}

TEST(Time, FromSecondsRoundsToNearestPicosecond) {
  EXPECT_EQ(Time::from_seconds(1.5).picoseconds(), 1'500'000'000'000);
  EXPECT_EQ(Time::from_seconds(2e-6).picoseconds(), 2'000'000);
  EXPECT_EQ(Time::from_seconds(1.4e-12).picoseconds(), 1);
  EXPECT_EQ(Time::from_seconds(1.6e-12).picoseconds(), 2);
  EXPECT_EQ(Time::from_seconds(-1.4e-12).picoseconds(), -1);
  EXPECT_EQ(Time::from_seconds(-1.6e-12).picoseconds(), -2);
  EXPECT_EQ(Time::from_seconds(0.0).picoseconds(), 0);
}

TEST(Time, FromSecondsRoundsHalvesAwayFromZero) {
  // 2.5e-12 * 1e12 and 0.5e-12 * 1e12 are exactly 2.5 and 0.5 in binary floating point.
  EXPECT_EQ(Time::from_seconds(2.5e-12).picoseconds(), 3);
  EXPECT_EQ(Time::from_seconds(0.5e-12).picoseconds(), 1);
  EXPECT_EQ(Time::from_seconds(-2.5e-12).picoseconds(), -3);
}

TEST(Time, FromSecondsKeepsOddPicosecondCountsAbove2To52) {
  // 5000.000000000001 s is exactly 5000000000000001 ps in floating point; adding 0.5 there
  // would round to the even neighbour 5000000000000002.
  EXPECT_EQ(Time::from_seconds(5000.000000000001).picoseconds(), 5'000'000'000'000'001);
  EXPECT_EQ(Time::from_seconds(-5000.000000000001).picoseconds(), -5'000'000'000'000'001);
  static_assert(Time::from_seconds(1e-9) == Time::ns(1));
}

}  // namespace
}  // namespace bifrost
