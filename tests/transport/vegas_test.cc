// RoGUE's Vegas alone, with exact values: the decision table, the paper's literal alpha and
// beta, slow start, loss and timeout, and the pacing rate with its step bound.
#include "bifrost/transport/cc/vegas.h"

#include <gtest/gtest.h>

#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/wire/frame.h"

namespace bifrost::transport {
namespace {

constexpr uint64_t kPacket = 4096;

uint64_t packets(uint64_t n) {
  return n * kPacket;
}

AckEvent sample(Time now, Time rtt) {
  return AckEvent{.now = now, .acked_bytes = 65536, .rtt = rtt};
}

TEST(Vegas, HeaderBytesAreWhatTheRateLimiterMetersBesidesPayload) {
  EXPECT_EQ(kRoceV2MeteredHeaderBytes, 58u);  // Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4
  EXPECT_EQ(wire::ethernet_frame_size(wire::Opcode::kRcWriteMiddle, 4096) - 4096,
            kRoceV2MeteredHeaderBytes);
}

TEST(Vegas, DiffCountsPacketsOfQueueAtTheCurrentRate) {
  EXPECT_DOUBLE_EQ(vegas_diff(packets(10), Time::us(12) + Time::ns(500), Time::us(10), 4096), 2.0);
  EXPECT_DOUBLE_EQ(vegas_diff(packets(40), Time::us(20), Time::us(10), 4096), 20.0);
  EXPECT_DOUBLE_EQ(vegas_diff(packets(10), Time::us(8), Time::us(10), 4096), 0.0);  // below base
  EXPECT_DOUBLE_EQ(vegas_diff(packets(10), Time::zero(), Time::zero(), 4096), 0.0);
}

TEST(Vegas, DecisionsOverATableOfWindowRttAndBase) {
  struct Row {
    uint64_t cwnd_packets;
    Time rtt;
    Time base;
    VegasStep expected;
  };
  const Time base = Time::us(10);
  const std::vector<Row> rows = {
      {10, Time::us(10), base, VegasStep::increase},                  // diff 0
      {10, Time::us(8), base, VegasStep::increase},                   // below base: diff 0
      {10, Time::us(12), base, VegasStep::increase},                  // diff 1.67 < alpha 2
      {10, Time::us(12) + Time::ns(500), base, VegasStep::hold},      // diff 2 = alpha
      {15, Time::us(12) + Time::ns(500), base, VegasStep::hold},      // diff 3
      {20, Time::us(12) + Time::ns(500), base, VegasStep::hold},      // diff 4 = beta
      {20, Time::us(13), base, VegasStep::decrease},                  // diff 4.62 > beta 4
      {40, Time::us(12) + Time::ns(500), base, VegasStep::decrease},  // diff 8
      {2, Time::us(100), Time::us(50), VegasStep::increase},          // diff 1
  };
  const VegasParams params;
  for (const Row& r : rows) {
    const double diff = vegas_diff(packets(r.cwnd_packets), r.rtt, r.base, 4096);
    EXPECT_EQ(vegas_decision(diff, params), r.expected)
        << r.cwnd_packets << " packets, diff " << diff;
  }
}

TEST(Vegas, LiteralPaperValuesLeaveNoHoldBandAndTheDecreaseWins) {
  VegasParams literal;
  literal.literal = true;  // alpha 4, beta 2 as the paper's §4 sets them
  EXPECT_NO_THROW(literal.validate());
  EXPECT_EQ(vegas_decision(0.0, literal), VegasStep::increase);
  EXPECT_EQ(vegas_decision(2.0, literal), VegasStep::increase);  // < alpha 4, not > beta 2
  EXPECT_EQ(vegas_decision(3.0, literal), VegasStep::decrease);  // both hold: decrease wins
  EXPECT_EQ(vegas_decision(4.0, literal), VegasStep::decrease);
  EXPECT_EQ(vegas_decision(9.0, literal), VegasStep::decrease);
  for (int tenth = 0; tenth <= 100; ++tenth) {
    EXPECT_NE(vegas_decision(tenth / 10.0, literal), VegasStep::hold) << tenth / 10.0;
  }
  // The same numbers without the flag are refused: they have no Vegas reading.
  VegasParams swapped;
  swapped.alpha = 4;
  swapped.beta = 2;
  EXPECT_THROW(swapped.validate(), Error);

  // In a connection, at diff 3 the default reading holds and the literal one decreases.
  VegasParams linux_reading;
  linux_reading.initial_window_packets = 28;
  literal.initial_window_packets = 28;
  Vegas held(linux_reading), cut(literal);
  for (Vegas* v : {&held, &cut}) {
    v->on_loss(Time::zero());                       // out of slow start at 14 packets
    v->on_ack(sample(Time::us(10), Time::us(10)));  // base 10 us, diff 0: 15 packets
    ASSERT_EQ(v->window_bytes(), packets(15));
    v->on_ack(sample(Time::us(20), Time::us(12) + Time::ns(500)));  // diff 15 * 2.5 / 12.5 = 3
  }
  EXPECT_EQ(held.window_bytes(), packets(15));
  EXPECT_EQ(cut.window_bytes(), packets(14));
}

TEST(Vegas, SlowStartDoublesOncePerRttAndEndsAtTheFirstDiffAboveBeta) {
  Vegas v{VegasParams{}};
  EXPECT_EQ(v.window_bytes(), packets(10));
  EXPECT_TRUE(v.in_slow_start());
  const Time rtt = Time::us(12) + Time::ns(500);
  v.on_ack(sample(Time::us(10), Time::us(10)));  // first sample, base 10 us: doubles
  EXPECT_EQ(v.window_bytes(), packets(20));
  v.on_ack(sample(Time::us(15), rtt));  // diff 4 = beta: still slow start, within one RTT
  EXPECT_EQ(v.window_bytes(), packets(20));
  EXPECT_TRUE(v.in_slow_start());
  v.on_ack(sample(Time::us(22) + Time::ns(499), rtt));  // 1 ps short of an RTT since doubling
  EXPECT_EQ(v.window_bytes(), packets(20));
  v.on_ack(sample(Time::us(22) + Time::ns(500), rtt));  // one RTT since: doubles
  EXPECT_EQ(v.window_bytes(), packets(40));
  EXPECT_TRUE(v.in_slow_start());
  v.on_ack(sample(Time::us(40), rtt));  // diff 8 > beta: out, at 40 * 10 / 12.5 + 1 = 33
  EXPECT_FALSE(v.in_slow_start());
  EXPECT_EQ(v.window_bytes(), packets(33));
  v.on_ack(sample(Time::us(60), Time::us(10)));  // congestion avoidance: one packet per sample
  EXPECT_EQ(v.window_bytes(), packets(34));
  v.on_ack(sample(Time::us(61), Time::us(10)));
  EXPECT_EQ(v.window_bytes(), packets(35));
  v.on_ack(sample(Time::us(62), Time::us(13)));  // diff 35 * 3 / 13 = 8.08: one packet less
  EXPECT_EQ(v.window_bytes(), packets(34));
  v.on_ack(AckEvent{
      .now = Time::us(63), .acked_bytes = 65536, .rtt = std::nullopt});  // no sample: nothing
  EXPECT_EQ(v.window_bytes(), packets(34));
}

TEST(Vegas, LossHalvesTimeoutRestartsSlowStartAtTheInitialWindow) {
  Vegas v{VegasParams{}};
  v.on_loss(Time::us(1));  // a loss also ends slow start
  EXPECT_FALSE(v.in_slow_start());
  EXPECT_EQ(v.window_bytes(), packets(5));
  v.on_loss(Time::us(2));
  EXPECT_EQ(v.window_bytes(), packets(2) + kPacket / 2);
  v.on_loss(Time::us(3));
  EXPECT_EQ(v.window_bytes(), packets(2));  // the minimum window
  v.on_ack(sample(Time::us(10), Time::us(10)));
  EXPECT_EQ(v.window_bytes(), packets(3));  // additive, not doubling
  v.on_timeout(Time::us(20));
  EXPECT_TRUE(v.in_slow_start());
  EXPECT_EQ(v.window_bytes(), packets(10));
  v.on_ack(sample(Time::us(30), Time::us(10)));
  EXPECT_EQ(v.window_bytes(), packets(20));  // the first sample after a timeout doubles
}

TEST(Vegas, BaseRttIsTheLowestSampleNeverBelowTheFloor) {
  VegasParams p;
  p.base_rtt_floor = Time::us(20);
  Vegas v(p);
  EXPECT_EQ(v.base_rtt(), Time::zero());
  v.on_ack(sample(Time::us(50), Time::us(30)));
  EXPECT_EQ(v.base_rtt(), Time::us(30));
  v.on_ack(sample(Time::us(51), Time::us(15)));
  EXPECT_EQ(v.base_rtt(), Time::us(20));
  v.on_ack(sample(Time::us(52), Time::us(40)));
  EXPECT_EQ(v.base_rtt(), Time::us(20));
}

TEST(Vegas, TargetRateIsTheWindowPerBaseRttInWireBytes) {
  const VegasParams p;
  // 20 packets = 81,920 payload bytes = 20 * 4,154 = 83,080 wire bytes per 100 us.
  EXPECT_EQ(vegas_target_rate(packets(20), Time::us(100), p), Rate::bps(6'646'400'000));
  EXPECT_EQ(vegas_target_rate(packets(10), Time::us(100), p), Rate::bps(3'323'200'000));
}

TEST(Vegas, RateStepsTowardTheTargetByAtMostTheStepAndNeverAboveLineRate) {
  const Rate g = Rate::Gbps(1);
  const Rate line = Rate::Gbps(10);
  EXPECT_EQ(step_rate_toward(Rate::Gbps(5), Rate::Gbps(2), g, line), Rate::Gbps(4));
  EXPECT_EQ(step_rate_toward(Rate::Gbps(5), Rate::Mbps(5500), g, line), Rate::Mbps(5500));
  EXPECT_EQ(step_rate_toward(Rate::Gbps(5), Rate::Mbps(4600), g, line), Rate::Mbps(4600));
  EXPECT_EQ(step_rate_toward(Rate::Gbps(9), Rate::Gbps(40), g, line), line);
  EXPECT_EQ(step_rate_toward(Rate::Mbps(9500), Rate::Gbps(40), g, line), line);
}

TEST(Vegas, PacingStartsAtLineRateAndMovesOneStepPerUpdate) {
  Vegas v{VegasParams{}};
  EXPECT_EQ(v.rate(), Rate::Gbps(10));
  EXPECT_EQ(v.pacing_rate(), std::nullopt);  // the initial window goes at line rate
  const Time rtt = Time::us(100);
  v.on_ack(sample(Time::us(100), rtt));  // doubles to 20 packets: target 6.6464 Gb/s
  EXPECT_EQ(v.pacing_rate(), Rate::Gbps(9));
  v.on_ack(sample(Time::us(110), rtt));  // within the RTT: window holds, rate steps
  EXPECT_EQ(v.pacing_rate(), Rate::Gbps(8));
  v.on_ack(sample(Time::us(120), rtt));
  EXPECT_EQ(v.pacing_rate(), Rate::Gbps(7));
  v.on_ack(sample(Time::us(130), rtt));
  EXPECT_EQ(v.pacing_rate(), Rate::bps(6'646'400'000));
  v.on_loss(Time::us(140));  // 10 packets: target 3.3232 Gb/s, one step down
  EXPECT_EQ(v.window_bytes(), packets(10));
  EXPECT_EQ(v.pacing_rate(), Rate::bps(5'646'400'000));
  v.on_loss(Time::us(141));  // 5 packets: 1.6616 Gb/s
  EXPECT_EQ(v.pacing_rate(), Rate::bps(4'646'400'000));
  v.on_timeout(Time::us(150));  // 10 packets again: 3.3232 Gb/s, reached within one step
  EXPECT_EQ(v.pacing_rate(), Rate::bps(3'646'400'000));
  v.on_ack(sample(Time::us(300), rtt));  // doubles to 20: 6.6464, one step up
  EXPECT_EQ(v.pacing_rate(), Rate::bps(4'646'400'000));
}

// The floor (issue 24): the paper's alpha 4 / beta 2 in packets and its rate cwnd / base_rtt.
// diff <= cwnd, so the literal rules never cut a window of 2 packets and cut one of 3 only
// above beta: every window sits at 2..3 packets, and paced at cwnd / base_rtt no rate goes
// below 2 packets per base RTT, however long the queue (here 300 us against a 6 us base, a
// 10 Gb/s port with two 64 KB batches of four flows queued). Paced at cwnd / RTT (the paper's
// "no more than cwnd of data ... per RTT") the same windows give a rate that falls with it.
TEST(Vegas, LiteralWindowsSitAtTheirFloorAndOnlyTheCurrentRttBasisLowersTheRate) {
  VegasParams p;
  p.literal = true;
  p.packet_bytes = 2048;
  const Time base = Time::us(6);
  const Time queued = Time::us(300);
  const auto run = [&](VegasRateBasis basis) {
    p.rate_basis = basis;
    Vegas v(p);
    v.on_ack(sample(Time::us(10), base));  // base RTT 6 us
    Time now = Time::us(20);
    for (int i = 0; i < 60; ++i, now = now + Time::us(50)) {
      v.on_ack(sample(now, queued));
      EXPECT_GE(v.window_bytes(), 2u * 2048) << i;
      if (i >= 10) {
        EXPECT_LE(v.window_bytes(), 3u * 2048) << i;
      }
    }
    return v;
  };
  const Vegas literal = run(VegasRateBasis::base_rtt);
  EXPECT_EQ(literal.pacing_rtt(), base);
  // 2 packets of 2048 + 58 wire bytes per 6 us: 5.616 Gb/s, the floor.
  const Rate floor = vegas_target_rate(2 * 2048, base, p);
  EXPECT_EQ(floor, Rate::bps(5'616'000'000));
  EXPECT_GE(literal.rate(), floor);

  const Vegas per_rtt = run(VegasRateBasis::current_rtt);
  EXPECT_EQ(per_rtt.pacing_rtt(), queued);
  EXPECT_EQ(per_rtt.rate(), vegas_target_rate(per_rtt.window_bytes(), queued, p));
  EXPECT_LE(per_rtt.rate(), Rate::Mbps(169));  // 3 packets per 300 us
}

TEST(Vegas, CurrentRttBasisIsTheBaseBasisOnAnEmptyPathAndNeverBelowTheBase) {
  VegasParams p;
  p.rate_basis = VegasRateBasis::current_rtt;
  p.base_rtt_floor = Time::us(20);
  Vegas v(p);
  EXPECT_EQ(v.pacing_rtt(), Time::zero());
  v.on_ack(sample(Time::us(100), Time::us(30)));
  EXPECT_EQ(v.pacing_rtt(), Time::us(30));  // the sample is the base: both bases agree
  v.on_ack(sample(Time::us(200), Time::us(10)));
  EXPECT_EQ(v.pacing_rtt(), Time::us(20));  // below the floored base: the base
  v.on_ack(sample(Time::us(300), Time::us(80)));
  EXPECT_EQ(v.pacing_rtt(), Time::us(80));
}

TEST(Vegas, InvalidParametersAreRefused) {
  VegasParams p;
  p.packet_bytes = 0;
  EXPECT_THROW(Vegas{p}, Error);
  p = {};
  p.loss_decrease = 1;
  EXPECT_THROW(Vegas{p}, Error);
  p = {};
  p.min_window_packets = 11;
  EXPECT_THROW(Vegas{p}, Error);
  p = {};
  p.rate_step = Rate::bps(0);
  EXPECT_THROW(Vegas{p}, Error);
}

}  // namespace
}  // namespace bifrost::transport
