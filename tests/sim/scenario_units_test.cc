#include <gtest/gtest.h>

#include "support/error_message.h"

#include "bifrost/core/error.h"
#include "bifrost/sim/scenario/units.h"

namespace bifrost::sim::scenario {
namespace {

using bifrost::testing::error_of;

TEST(Units, Rates) {
  EXPECT_EQ(parse_rate("100Gbps"), Rate::Gbps(100));
  EXPECT_EQ(parse_rate("2.5Gbps"), Rate::Mbps(2500));
  EXPECT_EQ(parse_rate("40Mbps"), Rate::Mbps(40));
  EXPECT_EQ(parse_rate("1Tbps"), Rate::Gbps(1000));
  EXPECT_EQ(parse_rate("9600bps"), Rate::bps(9600));
  EXPECT_EQ(parse_rate("0Kbps"), Rate::bps(0));
}

TEST(Units, Times) {
  EXPECT_EQ(parse_time("1us"), Time::us(1));
  EXPECT_EQ(parse_time("0.5us"), Time::ns(500));
  EXPECT_EQ(parse_time("0.000001s"), Time::us(1));
}

TEST(Units, TimesAllUnits) {
  EXPECT_EQ(parse_time("7ps"), Time::ps(7));
  EXPECT_EQ(parse_time("10ns"), Time::ns(10));
  EXPECT_EQ(parse_time("2ms"), Time::ms(2));
  EXPECT_EQ(parse_time("3s"), Time::s(3));
}

TEST(Units, Sizes) {
  EXPECT_EQ(parse_bytes("12MB"), Bytes(12'000'000));
  EXPECT_EQ(parse_bytes("1.5KiB"), Bytes(1536));
  EXPECT_EQ(parse_bytes("32MiB"), Bytes::MiB(32));
  EXPECT_EQ(parse_bytes("1GB"), Bytes(1'000'000'000));
  EXPECT_EQ(parse_bytes("2GiB"), Bytes::GiB(2));
  EXPECT_EQ(parse_bytes("1500B"), Bytes(1500));
  EXPECT_EQ(parse_bytes("100KB"), Bytes(100'000));
}

TEST(Units, LengthsAndFiberDelay) {
  EXPECT_EQ(parse_length("10km"), Length::kilometers(10));
  EXPECT_EQ(parse_length("2.5m"), Length::millimeters(2500));
  // 10 km of fibre at 5 ns/m is 50 us.
  EXPECT_EQ(fiber_delay(parse_length("10km")), Time::us(50));
  EXPECT_EQ(fiber_delay(Length::meters(1)), Time::ns(5));
}

TEST(Units, ErrorsSayWhatIsWrong) {
  EXPECT_EQ(error_of([] { parse_rate("100G"); }),
            "\"100G\" has an unknown rate unit \"G\"; valid units: bps, Kbps, Mbps, Gbps, Tbps");
  EXPECT_EQ(error_of([] { parse_rate("100gbps"); }),
            "\"100gbps\" has an unknown rate unit \"gbps\"; valid units: bps, Kbps, Mbps, Gbps, "
            "Tbps (units are case-sensitive: did you mean \"Gbps\"?)");
  EXPECT_EQ(error_of([] { parse_rate("100 Gbps"); }),
            "\"100 Gbps\" has an unknown rate unit \" Gbps\"; valid units: bps, Kbps, Mbps, Gbps, "
            "Tbps");
  EXPECT_EQ(error_of([] { parse_rate("fast"); }),
            "\"fast\" is not a rate: expected a number followed by a unit, such as \"100Gbps\"");
  EXPECT_EQ(error_of([] { parse_rate("100"); }),
            "\"100\" is not a rate: expected a number followed by a unit, such as \"100Gbps\"");
  EXPECT_EQ(error_of([] { parse_time("-1us"); }),
            "\"-1us\" is not a time: expected a number followed by a unit, such as \"1us\"");
  EXPECT_EQ(error_of([] { parse_time("1.5ps"); }),
            "\"1.5ps\" is not a whole number of picoseconds");
  EXPECT_EQ(error_of([] { parse_time("1..5us"); }),
            "\"1..5us\" is not a time: \"1..5\" is not a decimal number");
  EXPECT_EQ(error_of([] { parse_time("200000000s"); }), "\"200000000s\" is too large a time");
  EXPECT_EQ(error_of([] { parse_bytes("1.5B"); }), "\"1.5B\" is not a whole number of bytes");
  EXPECT_EQ(error_of([] { parse_bytes("12mb"); }),
            "\"12mb\" has an unknown size unit \"mb\"; valid units: B, KB, MB, GB, KiB, MiB, GiB "
            "(units are case-sensitive: did you mean \"MB\"?)");
  EXPECT_EQ(error_of([] { parse_length("10mi"); }),
            "\"10mi\" has an unknown length unit \"mi\"; valid units: m, km");
}

}  // namespace
}  // namespace bifrost::sim::scenario
