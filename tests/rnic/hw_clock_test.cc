#include "bifrost/rnic/hw_clock.h"

#include <gtest/gtest.h>

#include "support/error_message.h"

namespace bifrost::rnic {
namespace {

TEST(HwClock, DefaultFollowsHostTime) {
  EXPECT_EQ(HwClock().hw_time(Time::us(5)), Time::us(5));
}

TEST(HwClock, AddsOffsetAndDrift) {
  // 1 s at +50 ppm gains 50 us; the offset is added on top.
  const HwClock clock(Time::ms(3), 50.0);
  EXPECT_EQ(clock.hw_time(Time::zero()), Time::ms(3));
  EXPECT_EQ(clock.hw_time(Time::s(1)), Time::s(1) + Time::ms(3) + Time::us(50));
  // 10 ms at -20 ppm loses 200 ns.
  const HwClock slow(Time::ns(-7), -20.0);
  EXPECT_EQ(slow.hw_time(Time::ms(10)), Time::ps(10'000'000'000 - 7'000 - 200'000));
  // Rounds the drift to the nearest picosecond: 1234567 ps * 1.5e-6 = 1.85185 ps.
  EXPECT_EQ(HwClock(Time::zero(), 1.5).hw_time(Time::ps(1'234'567)), Time::ps(1'234'569));
}

TEST(HwClock, RejectsImplausibleDrift) {
  EXPECT_EQ(testing::error_of([] { HwClock(Time::zero(), 1500.0); }),
            "NIC clock drift 1500 ppm is out of range: use -1000..1000 ppm");
}

}  // namespace
}  // namespace bifrost::rnic
