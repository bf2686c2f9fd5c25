// RoGUE's UC immediates alone: the echo request (tag) and the echo, bit for bit, their round
// trip, the rounding and saturation of T_response, and what decode refuses.
#include "bifrost/transport/wire/rogue_imm.h"

#include <gtest/gtest.h>

namespace bifrost::transport {
namespace {

TEST(RogueImm, TheLayoutIsFlagKindBatchAndResponse) {
  EXPECT_EQ(encode_echo_request(0), 0x8000'0000u);
  EXPECT_EQ(encode_echo_request(7), 0x8000'0000u | 7u << 22);
  EXPECT_EQ(encode_echo_request(255), 0xBFC0'0000u);
  EXPECT_EQ(encode_echo(0, Time::zero()), 0xC000'0000u);
  EXPECT_EQ(encode_echo(1, Time::us(2)), 0xC000'0000u | 1u << 22 | 200u);  // 200 x 10 ns
  EXPECT_EQ(kRogueResponseCeiling, Time::ns(41'943'030));
  EXPECT_TRUE(is_rogue_imm(encode_echo_request(3)));
  EXPECT_FALSE(is_rogue_imm(0x7FFF'FFFF));  // the largest application immediate
}

TEST(RogueImm, EveryBatchAndResponseUnitRoundTripsExactly) {
  for (unsigned batch = 0; batch < 256; ++batch) {
    const auto b = static_cast<uint8_t>(batch);
    const auto request = decode_rogue_imm(encode_echo_request(b));
    ASSERT_TRUE(request);
    EXPECT_EQ(request.value, (RogueImm{RogueImmKind::echo_request, b, Time::zero()}));
    for (const uint32_t units : {0u, 1u, 12'345u, kRogueResponseMax}) {
      const RogueImm echo{RogueImmKind::echo, b, kRogueResponseUnit * units};
      const uint32_t imm = encode_rogue_imm(echo);
      EXPECT_EQ(imm & kRogueResponseMax, units);
      const auto back = decode_rogue_imm(imm);
      ASSERT_TRUE(back);
      EXPECT_EQ(back.value, echo);
    }
  }
}

TEST(RogueImm, ResponseRoundsToTheNearestUnitAndSaturates) {
  const auto response = [](Time t) { return decode_rogue_imm(encode_echo(9, t)).value.t_response; };
  EXPECT_EQ(response(Time::ps(4'999)), Time::zero());
  EXPECT_EQ(response(Time::ps(5'000)), Time::ns(10));
  EXPECT_EQ(response(Time::ps(1'234'567)), Time::ns(1'230));
  EXPECT_EQ(response(-Time::us(1)), Time::zero());
  EXPECT_EQ(response(kRogueResponseCeiling), kRogueResponseCeiling);
  EXPECT_EQ(response(kRogueResponseCeiling + Time::ns(4)), kRogueResponseCeiling);
  EXPECT_EQ(response(Time::s(1)), kRogueResponseCeiling);
  EXPECT_EQ(encode_echo(0xFF, Time::s(1)), 0xFFFF'FFFFu);
}

TEST(RogueImm, ApplicationImmediatesAndMalformedRequestsAreRefused) {
  EXPECT_EQ(decode_rogue_imm(0).error, wire::WireError::kFieldOutOfRange);
  EXPECT_EQ(decode_rogue_imm(0x7FFF'FFFF).error, wire::WireError::kFieldOutOfRange);
  EXPECT_EQ(decode_rogue_imm(0x8000'0001).error, wire::WireError::kFieldOutOfRange);
  EXPECT_TRUE(decode_rogue_imm(0xC000'0001));  // an echo of 10 ns
}

}  // namespace
}  // namespace bifrost::transport
