// The control path's modules alone: duplicate detection, ACK coalescing, chunk sizes, the
// Swift window, RTT estimation.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "bifrost/core/error.h"
#include "bifrost/core/rng.h"
#include "bifrost/transport/cc/cc_config.h"
#include "bifrost/transport/cc/congestion_control.h"
#include "bifrost/transport/cc/swift.h"
#include "bifrost/transport/chunking/chunk_policy.h"
#include "bifrost/transport/chunking/loss_estimate.h"
#include "bifrost/transport/reliability/ack_builder.h"
#include "bifrost/transport/reliability/sequence_set.h"
#include "bifrost/transport/rtt/rtt_estimator.h"

namespace bifrost::transport {
namespace {

TEST(SequenceSet, DetectsDuplicatesAndAdvancesItsFloor) {
  SequenceSet set(128);
  EXPECT_EQ(set.insert(1), SequenceSet::Insert::added);
  EXPECT_EQ(set.floor(), 0u);
  EXPECT_EQ(set.insert(0), SequenceSet::Insert::added);
  EXPECT_EQ(set.floor(), 2u);
  EXPECT_EQ(set.insert(1), SequenceSet::Insert::duplicate);
  EXPECT_EQ(set.insert(2 + 128), SequenceSet::Insert::out_of_window);
  EXPECT_FALSE(set.contains(130));
  EXPECT_EQ(set.insert(129), SequenceSet::Insert::added);
  EXPECT_TRUE(set.contains(129));
  EXPECT_EQ(set.insert(129), SequenceSet::Insert::duplicate);
}

TEST(SequenceSet, ExtendsWrappedWireNumbersNearTheFloor) {
  SequenceSet set(64, (uint64_t{1} << 32) - 2);
  EXPECT_EQ(set.extend(0xFFFF'FFFE, 32), (uint64_t{1} << 32) - 2);
  EXPECT_EQ(set.extend(3, 32), (uint64_t{1} << 32) + 3);             // wrapped forward
  EXPECT_EQ(set.extend(0xFFFF'FFF0, 32), (uint64_t{1} << 32) - 16);  // a late duplicate
  SequenceSet small(64, 5);
  EXPECT_EQ(small.extend(2, 21), 2u);
}

TEST(AckBuilder, TriggersOnCountBytesHintAndOutOfOrder) {
  AckBuilder b(AckCoalescing{.wqes = 4, .bytes = 10000});
  const AckedWqe w{.is_send = true, .global = 1};
  EXPECT_FALSE(b.add(w, 100, Time::us(1), false, false));
  EXPECT_FALSE(b.add(w, 100, Time::us(1), false, false));
  EXPECT_FALSE(b.add(w, 100, Time::us(1), false, false));
  EXPECT_EQ(b.add(w, 100, Time::us(1), false, false), AckTrigger::wqes);
  (void)b.take(1, Time::us(2), AckTrigger::wqes);
  EXPECT_EQ(b.add(w, 10000, Time::us(1), false, false), AckTrigger::bytes);
  (void)b.take(1, Time::us(2), AckTrigger::bytes);
  EXPECT_EQ(b.add(w, 1, Time::us(1), true, false), AckTrigger::hint);
  (void)b.take(1, Time::us(2), AckTrigger::hint);
  EXPECT_EQ(b.add(w, 1, Time::us(1), true, true), AckTrigger::out_of_order);
  const SoftAck ack = b.take(9, Time::us(4), AckTrigger::out_of_order);
  EXPECT_EQ(ack.connection, 9u);
  EXPECT_EQ(ack.ack_delay_ns, 3000u);  // from the newest receive to the post
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.triggers()[AckTrigger::wqes], 1u);
  EXPECT_EQ(b.triggers()[AckTrigger::out_of_order], 1u);
}

TEST(AckBuilder, SendGlobalsTwoToTheThirtyTwoApartGoInSeparateAcks) {
  AckBuilder b(AckCoalescing{});
  ASSERT_FALSE(b.add(AckedWqe{.is_send = true, .global = 10}, 1, Time::zero(), false, false));
  EXPECT_TRUE(b.fits(AckedWqe{.is_send = true, .global = 10 + 0xFFFF'FFFFull}));
  EXPECT_FALSE(b.fits(AckedWqe{.is_send = true, .global = 10 + (uint64_t{1} << 32)}));
  EXPECT_TRUE(b.fits(AckedWqe{.is_send = false, .write_imm = 5}));
}

TEST(LoadAwareChunking, FollowsWindowBdpAndQueuingDelay) {
  const LoadAwareChunking chunking(4096, 65536);
  ChunkContext c{.remaining = 1 << 20,
                 .window_available = 1 << 20,
                 .bdp = 625000,
                 .rtt = Time::us(50),
                 .base_rtt = Time::us(50)};
  EXPECT_EQ(chunking.next_chunk(c), 65536u);  // idle path: the maximum chunk
  c.rtt = Time::us(100);
  EXPECT_EQ(chunking.next_chunk(c), 32768u);  // RTT doubled: half
  c.rtt = Time::us(75);
  EXPECT_EQ(chunking.next_chunk(c), 40960u);  // 65536 * 50/75 = 43690 -> 10 units
  c.window_available = 10000;
  c.rtt = Time::us(50);
  EXPECT_EQ(chunking.next_chunk(c), 8192u);  // the window caps it, rounded down to units
  c.window_available = 100;
  EXPECT_EQ(chunking.next_chunk(c), 4096u);  // below a unit: one unit, no deadlock
  c.remaining = 1000;
  EXPECT_EQ(chunking.next_chunk(c), 1000u);  // the message's tail
  c.window_available = 1 << 20;
  c.remaining = 1 << 20;
  c.bdp = 20000;
  EXPECT_EQ(chunking.next_chunk(c), 16384u);  // a small BDP caps it
}

TEST(LoadAwareChunking, ASmallTailJoinsTheChunkWhenTheHardCapAllows) {
  const LoadAwareChunking chunking(4096, 65536);
  // srtt just above the base RTT shrinks a 64 KiB chunk to 63.4 KiB, 15 units: the 4 KiB left
  // of a 64 KiB message goes with it, not as a WQE of its own.
  ChunkContext c{.remaining = 65536,
                 .window_available = 1 << 20,
                 .bdp = 625000,
                 .rtt = Time::ns(50'500),
                 .base_rtt = Time::us(50)};
  EXPECT_EQ(chunking.next_chunk(c), 65536u);
  c.remaining = 1 << 20;
  EXPECT_EQ(chunking.next_chunk(c), 61440u);  // a long message still gets the shrunk chunk
  c.remaining = 65536;
  c.rtt = Time::us(65);  // 50412 B: 12 units, and the 16 KiB left is a quarter or more
  EXPECT_EQ(chunking.next_chunk(c), 49152u);
  // Never beyond the window: 60 KiB available and a 64 KiB message left gives 60 KiB.
  c.remaining = 65536;
  c.rtt = Time::us(50);
  c.window_available = 61440;
  EXPECT_EQ(chunking.next_chunk(c), 61440u);
}

TEST(LoadAwareChunking, ShrinksToTheLossBudgetWhileLossesAreSeen) {
  const LoadAwareChunking chunking(4096, 65536, 4096, 0.05);
  ChunkContext c{.remaining = 1 << 20,
                 .window_available = 1 << 20,
                 .bdp = 625000,
                 .rtt = Time::us(50),
                 .base_rtt = Time::us(50)};
  EXPECT_EQ(chunking.next_chunk(c), 65536u);  // no loss seen: the cap is off
  c.loss_rate = 0.01;
  EXPECT_EQ(chunking.next_chunk(c), 20480u);  // 0.05 / 1% = 5 packets of 4 KiB
  c.loss_rate = 0.004;
  EXPECT_EQ(chunking.next_chunk(c), 49152u);  // 12.5 packets, rounded down to units
  c.loss_rate = 0.0001;
  EXPECT_EQ(chunking.next_chunk(c), 65536u);  // 500 packets: max_chunk still rules
  c.loss_rate = 0.5;
  EXPECT_EQ(chunking.next_chunk(c), 4096u);  // below a packet: one unit still goes
  c.rtt = Time::us(100);
  c.loss_rate = 0.01;
  EXPECT_EQ(chunking.next_chunk(c), 20480u);  // the smaller of the two caps: 32 KiB vs 20 KiB
  const LoadAwareChunking blind(4096, 65536, 4096, 0);
  EXPECT_EQ(blind.next_chunk(c), 32768u);  // budget 0: loss is ignored
  EXPECT_THROW(LoadAwareChunking(4096, 65536, 4096, 1.5), Error);
}

TEST(PacketLossEstimate, SettlesAtTheLossRateAndFadesWhenLossStops) {
  PacketLossEstimate estimate(1024);
  EXPECT_EQ(estimate.rate(), 0.0);
  estimate.on_sent(100000);
  EXPECT_EQ(estimate.rate(), 0.0);  // nothing lost: nothing to fade
  RandomStream r(7, "loss-estimate");
  for (int i = 0; i < 200000; ++i) {
    estimate.on_sent(1);
    if (r.bernoulli(0.01)) estimate.on_lost();
  }
  // 1024 packets of memory hold about 10 losses: within +-60% (about 2 standard deviations).
  EXPECT_GT(estimate.rate(), 0.004);
  EXPECT_LT(estimate.rate(), 0.016);
  const double before = estimate.rate();
  estimate.on_sent(1024);
  EXPECT_NEAR(estimate.rate(), before / std::exp(1.0), before * 0.01);  // 1/e per memory
  estimate.on_sent(30 * 1024);
  EXPECT_EQ(estimate.rate(), 0.0);  // faded below 1e-9: the cap is off again
  for (int i = 0; i < 5000; ++i) estimate.on_lost();
  EXPECT_EQ(estimate.rate(), 1.0);  // never above every packet
  EXPECT_THROW(PacketLossEstimate(1), Error);
}

TEST(Swift, GrowsBelowTargetShrinksAboveAndDropsToMinimumOnLoss) {
  const CcParams params{.base_rtt = Time::us(50), .bdp_bytes = 625000, .mss = 4096};
  Swift swift(swift_params_for(params));
  const uint64_t start = swift.window_bytes();
  EXPECT_EQ(start, 625000u);
  swift.on_ack(AckEvent{.now = Time::us(100), .acked_bytes = 625000, .rtt = Time::us(50)});
  EXPECT_EQ(swift.window_bytes(), start + 4096);  // +1 mss per window acknowledged
  const uint64_t before = swift.window_bytes();
  swift.on_ack(AckEvent{.now = Time::us(200), .acked_bytes = 4096, .rtt = Time::us(120)});
  EXPECT_LT(swift.window_bytes(), before);
  const uint64_t once = swift.window_bytes();
  swift.on_ack(AckEvent{.now = Time::us(210), .acked_bytes = 4096, .rtt = Time::us(120)});
  EXPECT_EQ(swift.window_bytes(), once);  // at most one decrease per RTT
  swift.on_loss(Time::us(300));
  EXPECT_EQ(swift.window_bytes(), 4096u);
}

TEST(Swift, LossNeedsQueuingCutsOnlyWhenTheRttShowsAQueue) {
  const CcParams params{.base_rtt = Time::us(50), .bdp_bytes = 625000, .mss = 4096};
  SwiftParams p = swift_params_for(params);
  p.loss_needs_queuing = true;
  p.loss_gate = false;  // the gate supersedes it
  Swift swift(p);
  swift.on_loss(Time::us(10));
  EXPECT_EQ(swift.window_bytes(), 4096u) << "no RTT seen yet: the loss counts";
  Swift corrupt(p);
  // Target 50 + 10 us: a sample of 55 us is no queue, so the loss is taken for corruption.
  corrupt.on_ack(AckEvent{.now = Time::us(100), .acked_bytes = 4096, .rtt = Time::us(55)});
  const uint64_t held = corrupt.window_bytes();
  corrupt.on_loss(Time::us(110));
  EXPECT_EQ(corrupt.window_bytes(), held);
  corrupt.on_timeout(Time::us(120));
  EXPECT_EQ(corrupt.window_bytes(), 4096u) << "a timeout always cuts";
  Swift congested(p);
  congested.on_ack(AckEvent{.now = Time::us(100), .acked_bytes = 4096, .rtt = Time::us(50)});
  congested.on_ack(AckEvent{.now = Time::us(200), .acked_bytes = 4096, .rtt = Time::us(80)});
  congested.on_loss(Time::us(300));
  EXPECT_EQ(congested.window_bytes(), 4096u) << "above the target: congestion, the minimum";
}

TEST(CongestionControl, FactoryKnowsSwiftAndNone) {
  const CcParams params{};
  EXPECT_EQ(make_congestion_control(CcConfig{}, params)->name(), "swift");
  EXPECT_EQ(make_congestion_control(CcConfig{.kind = CcKind::none}, params)->window_bytes(),
            std::numeric_limits<uint64_t>::max());
  EXPECT_THROW(parse_cc_kind("cubic"), Error);
}

TEST(Rtt, EquationOneSubtractsTheReceiverDelay) {
  EXPECT_EQ(rtt_sample(Time::us(10), Time::us(150), Time::us(120)), Time::us(20));
  EXPECT_EQ(rtt_sample(Time::us(10), Time::us(20), Time::us(30)), Time::zero());
  RttEstimator e;
  EXPECT_EQ(e.rto(Time::us(500)), Time::us(500));
  e.add(Time::us(40));
  EXPECT_EQ(e.srtt(), Time::us(40));
  e.add(Time::us(80));
  EXPECT_EQ(e.srtt(), Time::us(45));
  EXPECT_EQ(e.min_rtt(), Time::us(40));
  EXPECT_EQ(e.rto(Time::us(1)), e.srtt() + e.rttvar() * 4);
}

}  // namespace
}  // namespace bifrost::transport
