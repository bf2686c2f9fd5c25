#include "bifrost/wire/headers.h"

#include <gtest/gtest.h>

namespace bifrost::wire {
namespace {

TEST(WirePsn, AddWrapsAt24Bits) {
  EXPECT_EQ(psn_add(0xFFFFFF, 1), 0u);
  EXPECT_EQ(psn_add(0xFFFFFE, 3), 1u);
  EXPECT_EQ(psn_add(0, 0xFFFFFF), 0xFFFFFFu);
  EXPECT_EQ(psn_add(5, kPsnMask), 4u);  // adding 2^24 - 1 steps back by one
  EXPECT_EQ(psn_add(0x123456, 0x1000000), 0x123456u);
}

TEST(WirePsn, DiffIsSignedAcrossTheWrap) {
  EXPECT_EQ(psn_diff(0, 0xFFFFFF), 1);
  EXPECT_EQ(psn_diff(0xFFFFFF, 0), -1);
  EXPECT_EQ(psn_diff(2, 0xFFFFFE), 4);
  EXPECT_EQ(psn_diff(0xFFFFFE, 2), -4);
  EXPECT_EQ(psn_diff(100, 100), 0);
  // The window is [-2^23, 2^23): half the circle ahead is the most negative distance.
  EXPECT_EQ(psn_diff(0x800000, 0), -0x800000);
  EXPECT_EQ(psn_diff(0x7FFFFF, 0), 0x7FFFFF);
  for (uint32_t from : {0u, 1u, 0x7FFFFFu, 0xFFFFF0u, 0xFFFFFFu}) {
    for (int32_t step : {-0x800000, -1000, -1, 0, 1, 17, 0x7FFFFF}) {
      EXPECT_EQ(psn_diff(psn_add(from, static_cast<uint32_t>(step)), from), step)
          << from << " " << step;
    }
  }
}

TEST(WireAeth, KindsAndValues) {
  const Aeth ack = make_ack(0x123456, 7);
  EXPECT_EQ(ack_kind(ack), AckKind::kAck);
  EXPECT_EQ(syndrome_value(ack), 7);
  EXPECT_EQ(ack.msn, 0x123456u);
  EXPECT_EQ(make_ack(1).syndrome, 0x1F);

  const Aeth rnr = make_rnr_nak(3, 14);
  EXPECT_EQ(rnr.syndrome, 0x2E);
  EXPECT_EQ(ack_kind(rnr), AckKind::kRnrNak);
  EXPECT_EQ(syndrome_value(rnr), 14);

  const Aeth nak = make_nak(9, NakCode::kRemoteAccessError);
  EXPECT_EQ(nak.syndrome, 0x62);
  EXPECT_EQ(ack_kind(nak), AckKind::kNak);
  EXPECT_EQ(make_nak(0, NakCode::kPsnSequenceError).syndrome, 0x60);

  EXPECT_EQ(ack_kind(Aeth{0x40, 0}), AckKind::kReserved);  // 010: reserved
  EXPECT_EQ(ack_kind(Aeth{0x80, 0}), AckKind::kReserved);  // bit 7 is reserved
  EXPECT_EQ(make_ack(0x1FFFFFF).msn, 0xFFFFFFu);           // MSN is 24 bits
}

}  // namespace
}  // namespace bifrost::wire
