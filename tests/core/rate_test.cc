#include "bifrost/core/rate.h"

#include <gtest/gtest.h>

namespace bifrost {
namespace {

TEST(Rate, UnitConstructors) {
  EXPECT_EQ(Rate::bps(5).bits_per_second(), 5);
  EXPECT_EQ(Rate::Kbps(5).bits_per_second(), 5'000);
  EXPECT_EQ(Rate::Mbps(5).bits_per_second(), 5'000'000);
  EXPECT_EQ(Rate::Gbps(400).bits_per_second(), 400'000'000'000);
  EXPECT_DOUBLE_EQ(Rate::Mbps(2'500).gbps(), 2.5);
  EXPECT_EQ(Rate().bits_per_second(), 0);
}

TEST(Rate, Arithmetic) {
  EXPECT_EQ(Rate::Gbps(25) * 4, Rate::Gbps(100));
  EXPECT_EQ(Rate::Gbps(100) / 3, Rate::bps(33'333'333'333));
  EXPECT_EQ(Rate::Gbps(40) + Rate::Gbps(60), Rate::Gbps(100));
  EXPECT_EQ(Rate::Gbps(100) - Rate::Gbps(60), Rate::Gbps(40));
  EXPECT_LT(Rate::Mbps(999), Rate::Gbps(1));
}

TEST(SerializationTime, ExactValues) {
  // 1500 * 8 bits / 1e11 bit/s = 1.2e-7 s = 120000 ps.
  EXPECT_EQ(serialization_time(Bytes(1'500), Rate::Gbps(100)).picoseconds(), 120'000);
  // 64 * 8 bits / 25e9 bit/s = 20.48 ns.
  EXPECT_EQ(serialization_time(Bytes(64), Rate::Gbps(25)).picoseconds(), 20'480);
  // 9000 * 8 bits / 4e11 bit/s = 180 ns.
  EXPECT_EQ(serialization_time(Bytes(9'000), Rate::Gbps(400)).picoseconds(), 180'000);
  // 8 bits at 8 bit/s is exactly one second: no rounding up.
  EXPECT_EQ(serialization_time(Bytes(1), Rate::bps(8)).picoseconds(), 1'000'000'000'000);
  EXPECT_EQ(serialization_time(Bytes(0), Rate::Gbps(100)).picoseconds(), 0);
  static_assert(serialization_time(Bytes(1'500), Rate::Gbps(100)) == Time::ns(120));
}

TEST(SerializationTime, RoundsUpToThePicosecond) {
  // 8e12 / 3 = 2666666666666.67 ps.
  EXPECT_EQ(serialization_time(Bytes(1), Rate::bps(3)).picoseconds(), 2'666'666'666'667);
  // 8e12 / 7 = 1142857142857.14 ps.
  EXPECT_EQ(serialization_time(Bytes(1), Rate::bps(7)).picoseconds(), 1'142'857'142'858);
  // 8 bits at 400 Gb/s = 20 ps exactly.
  EXPECT_EQ(serialization_time(Bytes(1), Rate::Gbps(400)).picoseconds(), 20);
  // 8 bits at 3 Gb/s = 2666.67 ps.
  EXPECT_EQ(serialization_time(Bytes(1), Rate::Gbps(3)).picoseconds(), 2'667);
}

TEST(SerializationTime, HugeValuesNeed128BitIntermediates) {
  // 1e10 B * 8 * 1e12 = 8e22 overflows 64 bits; the result 8e16 ps does not.
  EXPECT_EQ(serialization_time(Bytes(10'000'000'000), Rate::Mbps(1)).picoseconds(),
            80'000'000'000'000'000);
  // (1e10 + 1) * 8e12 / 3e6 = 26666666669333333.33 ps.
  EXPECT_EQ(serialization_time(Bytes(10'000'000'001), Rate::Mbps(3)).picoseconds(),
            26'666'666'669'333'334);
  // 2^40 B at 1 Gb/s = 2^43 ns.
  EXPECT_EQ(serialization_time(Bytes::GiB(1'024), Rate::Gbps(1)).picoseconds(),
            8'796'093'022'208'000);
}

TEST(BytesIn, RoundsDownToWholeBytes) {
  // 1 us at 100 Gb/s = 1e5 bits = 12500 B.
  EXPECT_EQ(bytes_in(Time::us(1), Rate::Gbps(100)).count(), 12'500u);
  EXPECT_EQ(bytes_in(Time::ps(79), Rate::Gbps(100)).count(), 0u);   // 7.9 bits
  EXPECT_EQ(bytes_in(Time::ps(81), Rate::Gbps(100)).count(), 1u);   // 8.1 bits
  EXPECT_EQ(bytes_in(Time::ps(159), Rate::Gbps(100)).count(), 1u);  // 15.9 bits
  EXPECT_EQ(bytes_in(Time::ps(160), Rate::Gbps(100)).count(), 2u);  // 16 bits
}

TEST(BytesIn, NonPositiveTimeGivesNothing) {
  EXPECT_EQ(bytes_in(Time::zero(), Rate::Gbps(100)).count(), 0u);
  EXPECT_EQ(bytes_in(Time::ns(-5), Rate::Gbps(100)).count(), 0u);
}

TEST(BytesIn, HugeValuesNeed128BitIntermediates) {
  // 1e12 ps * 4e11 bit/s = 4e23 overflows 64 bits; 1 s at 400 Gb/s is 5e10 B.
  EXPECT_EQ(bytes_in(Time::s(1), Rate::Gbps(400)).count(), 50'000'000'000u);
}

TEST(RateOf, RoundsDownToWholeBitsPerSecond) {
  EXPECT_EQ(rate_of(Bytes(1'500), Time::ns(120)), Rate::Gbps(100));
  // 8e12 / 3 = 2666666666666.67 bit/s.
  EXPECT_EQ(rate_of(Bytes(1), Time::ps(3)).bits_per_second(), 2'666'666'666'666);
  // 1e10 B in 8e16 ps: the intermediate 8e22 overflows 64 bits.
  EXPECT_EQ(rate_of(Bytes(10'000'000'000), Time::ps(80'000'000'000'000'000)), Rate::Mbps(1));
}

TEST(RateOf, InvertsSerializationTimeFromBelow) {
  // Serialization rounds time up, so the rate recovered from it never exceeds the wire rate.
  for (uint64_t n : {1u, 64u, 1'500u, 4'096u, 9'000u}) {
    for (Rate r : {Rate::bps(3), Rate::Gbps(25), Rate::Gbps(100), Rate::Mbps(2'333)}) {
      const Rate back = rate_of(Bytes(n), serialization_time(Bytes(n), r));
      EXPECT_LE(back, r) << n << " B at " << r.bits_per_second() << " bit/s";
      EXPECT_GE(back.bits_per_second(), r.bits_per_second() * 999 / 1'000);
    }
  }
}

}  // namespace
}  // namespace bifrost
