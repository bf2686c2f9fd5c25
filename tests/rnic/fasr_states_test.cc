// FaSR's receiver and sender state machines driven directly on scripted loss patterns: the fast
// and slow paths, compression-cnt, lost-cnt overflow, FNACK, the pool's GBN fallback, and the
// sender's reaction to SACKs, lost SACKs, timeouts and FNACKs by lost-cnt.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "bifrost/rnic/recovery/fasr_pool.h"
#include "bifrost/rnic/recovery/fasr_requester.h"
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
  // 3 lost too: the first QP enters the slow path (2 compressed, one block [3, 13)); 15 needs
  // a second block: it falls back, keeping what it recorded.
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

RecoveryConfig sender_config() {
  RecoveryConfig c;
  c.kind = EngineKind::fasr;
  c.bdp_packets = 64;
  return c;
}

std::vector<uint32_t> drain(FasrRequester& tx, uint32_t una, uint32_t snd_max) {
  std::vector<uint32_t> out;
  while (const auto psn = tx.next_retransmission(una, snd_max)) out.push_back(*psn);
  return out;
}

void sack(FasrRequester& tx, uint32_t una, uint32_t psn, uint32_t snd_max, uint8_t lost,
          bool overflow = false) {
  tx.on_sack_state(lost, overflow);
  tx.on_sack(una, psn, snd_max);
}

TEST(FasrSender, FirstSackResendsUnackToTheSackAtOnce) {
  FasrRequester tx(sender_config());
  tx.on_ack(0);
  sack(tx, 5, 8, 20, 3);  // 5, 6, 7 lost
  EXPECT_TRUE(tx.recovering());
  EXPECT_EQ(drain(tx, 5, 20), (std::vector<uint32_t>{5, 6, 7}));
  sack(tx, 5, 9, 20, 3);  // contiguous: nothing to resend
  EXPECT_TRUE(drain(tx, 5, 20).empty());
  tx.on_ack(10);
  EXPECT_FALSE(tx.recovering());
}

TEST(FasrSender, DiscontiguousSackResendsOnlyWhenLostCntGrew) {
  FasrRequester tx(sender_config());
  tx.on_ack(0);
  sack(tx, 5, 6, 30, 1);  // 5 lost: fast path
  EXPECT_EQ(drain(tx, 5, 30), (std::vector<uint32_t>{5}));
  // The SACKs of 7 and 8 were lost; 9 still says lost-cnt 1: 7 and 8 arrived.
  sack(tx, 5, 9, 30, 1);
  EXPECT_TRUE(drain(tx, 5, 30).empty());
  // 10 and 11 were lost: lost-cnt grew to 3.
  sack(tx, 5, 12, 30, 3);
  EXPECT_EQ(drain(tx, 5, 30), (std::vector<uint32_t>{10, 11}));
  // A timeout with lost-cnt > 1 resends UNACK and the holes up to sack-high, not 7 or 8.
  tx.on_timeout(5, 30);
  EXPECT_EQ(drain(tx, 5, 30), (std::vector<uint32_t>{5, 10, 11}));
}

TEST(FasrSender, TimeoutFollowsLostCnt) {
  {
    FasrRequester tx(sender_config());  // lost-cnt 0: go back to UNACK
    tx.on_ack(0);
    tx.on_timeout(3, 7);
    EXPECT_EQ(drain(tx, 3, 7), (std::vector<uint32_t>{3, 4, 5, 6}));
  }
  {
    FasrRequester tx(sender_config());  // lost-cnt 1: only UNACK
    tx.on_ack(0);
    sack(tx, 3, 4, 10, 1);
    drain(tx, 3, 10);
    tx.on_timeout(3, 10);
    EXPECT_EQ(drain(tx, 3, 10), (std::vector<uint32_t>{3}));
  }
}

TEST(FasrSender, FnackIsAnEarlyTimeoutOncePerNewAck) {
  FasrRequester tx(sender_config());
  tx.on_ack(0);
  sack(tx, 1, 4, 10, 3);
  EXPECT_EQ(drain(tx, 1, 10), (std::vector<uint32_t>{1, 2, 3}));
  tx.on_fnack(1, 10);
  EXPECT_EQ(drain(tx, 1, 10), (std::vector<uint32_t>{1, 2, 3}));
  tx.on_fnack(1, 10);  // no new ACK since: ignored
  EXPECT_TRUE(drain(tx, 1, 10).empty());
  EXPECT_EQ(tx.early_timeouts(), 1u);
  tx.on_ack(2);
  EXPECT_EQ(tx.lost_cnt(), 2);  // the ACK passed one hole
  tx.on_fnack(2, 10);
  EXPECT_EQ(drain(tx, 2, 10), (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(tx.early_timeouts(), 2u);
}

TEST(FasrSender, OverflowCountsAsGrowth) {
  FasrRequester tx(sender_config());
  tx.on_ack(0);
  sack(tx, 0, 8, 40, 7, true);
  drain(tx, 0, 40);
  sack(tx, 0, 12, 40, 7, true);
  EXPECT_EQ(drain(tx, 0, 40), (std::vector<uint32_t>{9, 10, 11}));
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
