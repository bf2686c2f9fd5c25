// FaSR's receiver state machine driven directly on scripted loss patterns: the fast and slow
// paths, compression-cnt and its disable rule, lost-cnt overflow, FNACK, the AACK's lost-cnt,
// and the pool's GBN fallback. The sender is in fasr_sender_test.cc.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "bifrost/rnic/recovery/fasr_pool.h"
#include "bifrost/rnic/recovery/fasr_responder.h"
#include "bifrost/wire/headers.h"

namespace bifrost::rnic::recovery {
namespace {

using Path = FasrResponder::Path;

// A receiver as the responder drives it: classify, then record / advance / feedback.
struct Receiver {
  explicit Receiver(std::shared_ptr<FasrPool> p, uint32_t first = 0)
      : pool(std::move(p)), rx(pool), expected(first) {}
  Arrival arrive(uint32_t psn) {
    const Arrival a = rx.classify(psn, expected, 1);
    if (a == Arrival::in_order) expected = rx.advance(expected, 1);
    if (a == Arrival::out_of_order) rx.record(psn, 1);
    last = rx.feedback(a);
    return a;
  }
  std::shared_ptr<FasrPool> pool;
  FasrResponder rx;
  uint32_t expected;
  Feedback last = Feedback::none;
};

std::shared_ptr<FasrPool> pool(uint32_t units = 20, uint32_t blocks = 70, uint32_t bits = 10) {
  return std::make_shared<FasrPool>(FasrPoolConfig{units, blocks, bits});
}

TEST(FasrReceiver, SingleLossTakesTheFastPathWithoutABitmap) {
  Receiver r(pool());
  for (uint32_t p = 0; p < 5; ++p) EXPECT_EQ(r.arrive(p), Arrival::in_order);
  EXPECT_EQ(r.rx.path(), Path::normal);
  // 5 lost: 6..9 only move sack-high.
  for (uint32_t p = 6; p < 10; ++p) {
    EXPECT_EQ(r.arrive(p), Arrival::out_of_order);
    EXPECT_EQ(r.last, Feedback::sack);
    EXPECT_EQ(r.rx.path(), Path::fast);
    EXPECT_EQ(r.rx.lost_cnt(), 1);
    EXPECT_EQ(r.rx.sack_high(), p);
  }
  EXPECT_EQ(r.rx.blocks(), 0u);
  EXPECT_EQ(r.pool->usage().units_in_use, 1u);
  EXPECT_EQ(r.pool->usage().blocks_in_use, 0u);
  EXPECT_EQ(wire::decode_fasr_info(r.rx.sack_info()).lost_cnt, 1);
  EXPECT_EQ(r.arrive(7), Arrival::duplicate);
  // The retransmission of RCV-NXT jumps to sack-high + 1 and returns the unit.
  EXPECT_EQ(r.arrive(5), Arrival::in_order);
  EXPECT_EQ(r.expected, 10u);
  EXPECT_EQ(r.rx.path(), Path::normal);
  EXPECT_EQ(r.pool->usage().units_in_use, 0u);
  EXPECT_EQ(r.rx.fast_recoveries(), 1u);
  EXPECT_EQ(r.rx.slow_recoveries(), 0u);
}

TEST(FasrReceiver, BurstTakesTheSlowPathAndReturnsToTheFastPath) {
  Receiver r(pool());
  r.arrive(0);
  // 1, 2 and 3 lost; 4 opens a gap of three.
  EXPECT_EQ(r.arrive(4), Arrival::out_of_order);
  EXPECT_EQ(r.rx.path(), Path::slow);
  EXPECT_EQ(r.rx.lost_cnt(), 3);
  EXPECT_EQ(r.rx.compression(), 0);
  EXPECT_EQ(r.rx.blocks(), 1u);
  for (uint32_t p = 5; p < 30; ++p) r.arrive(p);  // bitmap grows at the tail
  EXPECT_EQ(r.rx.blocks(), 3u);                   // PSNs 1..29 in 10-bit blocks
  EXPECT_EQ(r.rx.lost_cnt(), 3);
  EXPECT_EQ(r.arrive(1), Arrival::in_order);
  EXPECT_EQ(r.expected, 2u);
  EXPECT_EQ(r.rx.lost_cnt(), 2);
  EXPECT_EQ(r.rx.path(), Path::slow);
  EXPECT_EQ(r.arrive(2), Arrival::in_order);
  // lost-cnt is 1 again: fast path, the bitmap goes back to the pool.
  EXPECT_EQ(r.rx.path(), Path::fast);
  EXPECT_EQ(r.rx.blocks(), 0u);
  EXPECT_EQ(r.pool->usage().blocks_in_use, 0u);
  EXPECT_EQ(r.expected, 3u);
  EXPECT_EQ(r.arrive(3), Arrival::in_order);
  EXPECT_EQ(r.expected, 30u);
  EXPECT_EQ(r.pool->usage().units_in_use, 0u);
  EXPECT_EQ(r.rx.slow_recoveries(), 1u);
}

TEST(FasrReceiver, CompressionCountDelaysTheBitmap) {
  Receiver r(pool());
  r.arrive(0);
  for (uint32_t p = 2; p < 27; ++p) r.arrive(p);  // 1 lost: fast path, sack-high 26
  EXPECT_EQ(r.rx.path(), Path::fast);
  EXPECT_EQ(r.arrive(28), Arrival::out_of_order);  // 27 lost too
  EXPECT_EQ(r.rx.path(), Path::slow);
  EXPECT_EQ(r.rx.compression(), 25);  // 2..26 kept as a count, not as bits
  EXPECT_EQ(r.rx.blocks(), 1u);       // the bitmap starts at 27
  EXPECT_EQ(r.rx.lost_cnt(), 2);
  EXPECT_EQ(r.arrive(20), Arrival::duplicate);  // inside the compressed run
  EXPECT_EQ(r.arrive(1), Arrival::in_order);
  EXPECT_EQ(r.expected, 27u);
  EXPECT_EQ(r.rx.path(), Path::fast);
  EXPECT_EQ(r.arrive(27), Arrival::in_order);
  EXPECT_EQ(r.expected, 29u);
  EXPECT_EQ(r.pool->usage().units_in_use, 0u);
}

TEST(FasrReceiver, LostRetransmissionIsDetectedByTheNextOneAndFnacked) {
  Receiver r(pool());
  r.arrive(0);
  r.arrive(3);  // 1 and 2 lost
  ASSERT_EQ(r.rx.lost_cnt(), 2);
  // The sender resends 1 and 2; the resend of 1 is lost: 2 arrives while RCV-NXT is 1.
  EXPECT_EQ(r.arrive(2), Arrival::drop);
  EXPECT_EQ(r.last, Feedback::fnack);
  const wire::FasrSackInfo info = wire::decode_fasr_info(r.rx.sack_info());
  EXPECT_EQ(info.lost_cnt, 2);
  // One FNACK per RCV-NXT.
  EXPECT_EQ(r.arrive(2), Arrival::drop);
  EXPECT_EQ(r.last, Feedback::none);
  EXPECT_EQ(r.arrive(1), Arrival::in_order);
  EXPECT_EQ(r.arrive(2), Arrival::in_order);
  EXPECT_EQ(r.expected, 4u);
  EXPECT_EQ(r.rx.path(), Path::normal);
}

TEST(FasrReceiver, LostCntOverflowSaturatesAndRecoveryEndsOnTheBitmap) {
  Receiver r(pool());
  r.arrive(0);
  r.arrive(5);   // 1..4 lost
  r.arrive(10);  // 6..9 lost: eight PSNs missing
  EXPECT_EQ(r.rx.lost_cnt(), 7);
  EXPECT_TRUE(r.rx.overflow());
  const wire::FasrSackInfo info = wire::decode_fasr_info(r.rx.sack_info());
  EXPECT_EQ(info.lost_cnt, 7);
  EXPECT_TRUE(info.overflow);
  // In overflow the count is no guide: the bitmap alone says when recovery ends.
  for (uint32_t p : {1u, 2u, 3u, 4u, 6u, 7u, 8u}) {
    EXPECT_EQ(r.arrive(p), Arrival::in_order) << p;
    EXPECT_EQ(r.rx.path(), Path::slow) << p;
  }
  EXPECT_EQ(r.arrive(9), Arrival::in_order);
  EXPECT_EQ(r.expected, 11u);
  EXPECT_EQ(r.rx.path(), Path::normal);
  EXPECT_EQ(r.pool->usage().units_in_use, 0u);
  EXPECT_EQ(r.pool->usage().blocks_in_use, 0u);
}

TEST(FasrReceiver, EmptyPoolFallsBackToGoBackNUntilRecoveryCompletes) {
  auto shared = pool(1, 1, 10);
  Receiver first(shared);
  Receiver second(shared);
  first.arrive(0);
  first.arrive(2);  // the only unit
  // The second QP finds no unit: go-back-N, one NAK per episode.
  EXPECT_EQ(second.arrive(1), Arrival::drop);
  EXPECT_EQ(second.last, Feedback::nak_sequence);
  EXPECT_TRUE(second.rx.go_back_n());
  EXPECT_EQ(second.arrive(2), Arrival::drop);
  EXPECT_EQ(second.last, Feedback::none);
  EXPECT_EQ(shared->usage().fallbacks, 1u);
  EXPECT_EQ(second.arrive(0), Arrival::in_order);
  EXPECT_FALSE(second.rx.go_back_n());
  // 3 lost too: the first QP enters the slow path (the run of one PSN, 2, is under a block, so
  // it is kept as a bit: one block [2, 12)); 15 needs a second block: it falls back, keeping
  // what it recorded.
  first.arrive(4);
  ASSERT_EQ(first.rx.path(), Path::slow);
  EXPECT_EQ(first.arrive(15), Arrival::drop);
  EXPECT_EQ(first.last, Feedback::nak_sequence);
  EXPECT_TRUE(first.rx.go_back_n());
  EXPECT_EQ(first.arrive(1), Arrival::in_order);
  EXPECT_EQ(first.arrive(2), Arrival::duplicate);  // recorded before the fallback
  EXPECT_EQ(first.arrive(3), Arrival::in_order);
  EXPECT_EQ(first.expected, 5u);
  EXPECT_FALSE(first.rx.go_back_n());
  EXPECT_EQ(shared->usage().units_in_use, 0u);
  EXPECT_EQ(shared->usage().blocks_in_use, 0u);
}

TEST(FasrReceiver, DestroyingAQpInRecoveryReturnsItsUnit) {
  auto shared = pool();
  {
    Receiver r(shared);
    r.arrive(0);
    r.arrive(9);
    EXPECT_EQ(shared->usage().units_in_use, 1u);
    EXPECT_GT(shared->usage().blocks_in_use, 0u);
  }
  EXPECT_EQ(shared->usage().units_in_use, 0u);
  EXPECT_EQ(shared->usage().blocks_in_use, 0u);
}

// The pool's path statistics (Fig. 9(b)): episodes by path and out-of-order packets by path,
// summed over every QP that shares the pool.
TEST(FasrReceiver, PoolCountsRecoveriesAndPacketsByPath) {
  auto shared = pool();
  Receiver r(shared);
  const FasrPoolUsage& u = shared->usage();
  // A single loss: 5 lost, 6..9 arrive on the fast path, the resend of 5 ends the episode.
  for (uint32_t p = 0; p < 5; ++p) r.arrive(p);
  for (uint32_t p = 6; p < 10; ++p) r.arrive(p);
  EXPECT_EQ(u.fast_recoveries, 0u);  // counted when the episode ends
  EXPECT_EQ(u.fast_path_packets, 4u);
  r.arrive(5);
  EXPECT_EQ(u.fast_recoveries, 1u);
  EXPECT_EQ(u.slow_recoveries, 0u);
  EXPECT_EQ(u.fast_path_packets, 4u);
  EXPECT_EQ(u.slow_path_packets, 0u);
  // A burst: 10..12 lost, 13..18 arrive on the slow path. The episode returns to the fast path
  // for its last hole and still counts as slow.
  for (uint32_t p = 13; p < 19; ++p) r.arrive(p);
  EXPECT_EQ(u.slow_path_packets, 6u);
  r.arrive(10);
  r.arrive(11);
  ASSERT_EQ(r.rx.path(), Path::fast);
  r.arrive(12);
  EXPECT_EQ(r.expected, 19u);
  EXPECT_EQ(u.fast_recoveries, 1u);
  EXPECT_EQ(u.slow_recoveries, 1u);
  EXPECT_EQ(u.fast_path_packets, 4u);
  EXPECT_EQ(u.slow_path_packets, 6u);
  // Fast, then a second hole: 19 lost, 20..22 fast; 23 lost, 24 opens the slow path.
  for (uint32_t p : {20u, 21u, 22u, 24u}) r.arrive(p);
  EXPECT_EQ(u.fast_path_packets, 7u);
  EXPECT_EQ(u.slow_path_packets, 7u);
  r.arrive(19);
  r.arrive(23);
  EXPECT_EQ(r.expected, 25u);
  EXPECT_EQ(u.fast_recoveries, 1u);
  EXPECT_EQ(u.slow_recoveries, 2u);
  // The per-QP counters agree, and a second QP on the same pool adds to the NIC-wide ones.
  EXPECT_EQ(r.rx.fast_recoveries(), 1u);
  EXPECT_EQ(r.rx.slow_recoveries(), 2u);
  Receiver other(shared);
  other.arrive(0);
  other.arrive(2);
  other.arrive(1);
  EXPECT_EQ(other.rx.fast_recoveries(), 1u);
  EXPECT_EQ(u.fast_recoveries, 2u);
  EXPECT_EQ(u.fast_path_packets, 8u);
  EXPECT_EQ(u.units_in_use, 0u);
}

TEST(FasrReceiver, WorksAcrossThePsnWrap) {
  Receiver r(pool(), 0xFFFFFE);
  r.arrive(0xFFFFFE);
  r.arrive(0);  // 0xFFFFFF lost
  r.arrive(2);  // 1 lost
  EXPECT_EQ(r.rx.path(), Path::slow);
  EXPECT_EQ(r.arrive(0xFFFFFF), Arrival::in_order);
  EXPECT_EQ(r.expected, 1u);
  EXPECT_EQ(r.arrive(1), Arrival::in_order);
  EXPECT_EQ(r.expected, 3u);
}

// Section III-D: "If the offset between RCV-NXT and sack-high is less than the size of one
// bitmap block when transitioning to the slow path, the compression-cnt is set to zero".
TEST(FasrReceiver, CompressionIsDisabledForARunUnderOneBlock) {
  Receiver r(pool(20, 70, 10));
  r.arrive(0);
  for (uint32_t p = 2; p < 11; ++p) r.arrive(p);  // 1 lost; a run of 9 PSNs, under a block
  ASSERT_EQ(r.rx.path(), Path::fast);
  r.arrive(12);  // 11 lost too: into the slow path
  EXPECT_EQ(r.rx.path(), Path::slow);
  EXPECT_EQ(r.rx.compression(), 0);
  // The run is in bits from RCV-NXT + 1 = 2: blocks [2, 12) and [12, 22).
  EXPECT_EQ(r.rx.blocks(), 2u);
  EXPECT_EQ(r.arrive(5), Arrival::duplicate);  // recorded as a bit
  EXPECT_EQ(r.arrive(1), Arrival::in_order);
  EXPECT_EQ(r.expected, 11u);
  EXPECT_EQ(r.arrive(11), Arrival::in_order);
  EXPECT_EQ(r.expected, 13u);
  EXPECT_EQ(r.pool->usage().blocks_in_use, 0u);
  // A run of exactly one block compresses.
  Receiver s(pool(20, 70, 10));
  s.arrive(0);
  for (uint32_t p = 2; p < 12; ++p) s.arrive(p);  // a run of 10
  s.arrive(13);
  EXPECT_EQ(s.rx.compression(), 10);
  EXPECT_EQ(s.rx.blocks(), 1u);  // [12, 22)
}

// The AACK: ACKs carry lost-cnt while the receiver holds a unit, and nothing otherwise.
TEST(FasrReceiver, AcksCarryLostCntOnlyDuringRecovery) {
  Receiver r(pool());
  r.arrive(0);
  EXPECT_FALSE(r.rx.ack_info().has_value());
  r.arrive(4);  // 1, 2, 3 lost
  ASSERT_TRUE(r.rx.ack_info().has_value());
  EXPECT_EQ(wire::decode_fasr_info(*r.rx.ack_info()).lost_cnt, 3);
  r.arrive(1);  // the resend of 1: lost-cnt falls, and the ACK says so
  EXPECT_EQ(wire::decode_fasr_info(*r.rx.ack_info()).lost_cnt, 2);
  r.arrive(2);
  r.arrive(3);  // recovery over: the unit is back, ACKs are plain again
  EXPECT_EQ(r.expected, 5u);
  EXPECT_FALSE(r.rx.ack_info().has_value());
}

TEST(FasrWire, SackInfoRoundTrips) {
  for (uint8_t lost = 0; lost < 8; ++lost) {
    for (bool overflow : {false, true}) {
      for (bool fnack : {false, true}) {
        const wire::FasrSackInfo info{lost, overflow, fnack};
        EXPECT_EQ(wire::decode_fasr_info(wire::encode_fasr_info(info)), info);
      }
    }
  }
  EXPECT_EQ(wire::decode_fasr_info(0), wire::FasrSackInfo{});
}

}  // namespace
}  // namespace bifrost::rnic::recovery
