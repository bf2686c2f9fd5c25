// The two baselines of RoGUE's evaluation as congestion controls: TIMELY's Algorithm 1 step by
// step, and DCTCP's alpha and window by hand.
#include <gtest/gtest.h>

#include "bifrost/core/error.h"
#include "bifrost/transport/cc/dctcp.h"
#include "bifrost/transport/cc/timely.h"

namespace bifrost::transport {
namespace {

AckEvent sample(Time now, Time rtt, uint64_t bytes = 4096, bool ecn = false) {
  return AckEvent{.now = now, .acked_bytes = bytes, .rtt = rtt, .ecn = ecn};
}

TimelyParams timely_at_10g() {
  TimelyParams p;
  p.line_rate = Rate::Gbps(10);
  p.additive_increase = Rate::Mbps(10);
  return p;
}

TEST(Timely, StartsAtLineRateAndCutsOnARisingRtt) {
  Timely t(timely_at_10g());
  EXPECT_EQ(t.rate(), Rate::Gbps(10));
  EXPECT_FALSE(t.pacing_rate().has_value());
  t.on_ack(sample(Time::us(1), Time::us(100)));  // the first sample sets prev_rtt only
  EXPECT_EQ(t.rate(), Rate::Gbps(10));
  // +20 us: rtt_diff = 0.875 * 20 = 17.5 us; gradient 17.5 / 20 = 0.875;
  // rate = 10G * (1 - 0.8 * 0.875) = 3 Gb/s.
  t.on_ack(sample(Time::us(2), Time::us(120)));
  EXPECT_DOUBLE_EQ(t.rtt_diff_us(), 17.5);
  EXPECT_NEAR(static_cast<double>(t.rate().bits_per_second()), 3e9, 1);
  ASSERT_TRUE(t.pacing_rate().has_value());
}

TEST(Timely, AboveTHighTheCutFollowsTheSampleBelowTLowItAdds) {
  Timely t(timely_at_10g());
  t.on_ack(sample(Time::us(1), Time::us(1000)));
  // 1000 us > t_high: rate * (1 - 0.8 * (1 - 500 / 1000)) = 10G * 0.6.
  t.on_ack(sample(Time::us(2), Time::us(1000)));
  EXPECT_NEAR(static_cast<double>(t.rate().bits_per_second()), 6e9, 1);
  // 30 us < t_low: + delta.
  t.on_ack(sample(Time::us(3), Time::us(30)));
  EXPECT_NEAR(static_cast<double>(t.rate().bits_per_second()), 6.01e9, 1);
}

TEST(Timely, HyperactiveIncreaseAfterFiveFallingOrFlatSamples) {
  Timely t(timely_at_10g());
  t.on_ack(sample(Time::us(1), Time::us(1000)));
  t.on_ack(sample(Time::us(2), Time::us(1000)));  // 6 Gb/s, as above
  // The step from 1000 to 100 us, then flat 100 us samples inside [t_low, t_high]: the EWMA of
  // the differences stays negative (decaying toward 0), so every update adds; from the fifth
  // in a row, five deltas.
  double expected = 6e9;
  for (int i = 1; i <= 7; ++i) {
    t.on_ack(sample(Time::us(2 + i), Time::us(100)));
    expected += (i >= 5 ? 5 : 1) * 1e7;
    EXPECT_NEAR(static_cast<double>(t.rate().bits_per_second()), expected, 1) << i;
  }
}

TEST(Timely, TheRateStaysWithinItsBoundsAndLossesLeaveIt) {
  Timely t(timely_at_10g());
  t.on_ack(sample(Time::us(1), Time::us(60)));
  t.on_ack(sample(Time::us(2), Time::us(400)));  // a huge gradient: to the floor, not below 0
  EXPECT_EQ(t.rate(), Rate::Mbps(100));
  t.on_loss(Time::us(3));
  t.on_timeout(Time::us(4));
  EXPECT_EQ(t.rate(), Rate::Mbps(100));
  EXPECT_GE(t.window_bytes(), 4096u);
  TimelyParams bad = timely_at_10g();
  bad.t_high = Time::us(10);
  EXPECT_THROW(Timely{bad}, Error);
}

DctcpParams dctcp_4k() {
  DctcpParams p;
  p.mss = 4096;
  p.max_window_bytes = 100 * 4096;
  return p;
}

TEST(Dctcp, SlowStartThenAMarkCutsByHalfOfAlpha) {
  Dctcp d(dctcp_4k());
  EXPECT_EQ(d.window_bytes(), 10u * 4096);
  EXPECT_DOUBLE_EQ(d.alpha(), 1.0);
  // Slow start: + acknowledged bytes.
  d.on_ack(sample(Time::us(1), Time::us(10), 4096));
  EXPECT_EQ(d.window_bytes(), 11u * 4096);
  // A marked ACK: cwnd * (1 - 1/2), once per observation window.
  d.on_ack(sample(Time::us(2), Time::us(10), 4096, true));
  EXPECT_EQ(d.window_bytes(), 11u * 4096 / 2);
  EXPECT_FALSE(d.in_slow_start());
  d.on_ack(sample(Time::us(3), Time::us(10), 4096, true));
  EXPECT_EQ(d.window_bytes(), 11u * 4096 / 2);  // same window: no second cut
}

TEST(Dctcp, AlphaFollowsTheMarkedFractionOncePerWindow) {
  Dctcp d(dctcp_4k());
  // The first observation window is the initial 10 packets: 5 marked, 5 not.
  for (int i = 0; i < 10; ++i) d.on_ack(sample(Time::us(i), Time::us(10), 4096, i < 5));
  // alpha = 15/16 * 1 + 1/16 * 0.5
  EXPECT_DOUBLE_EQ(d.alpha(), 15.0 / 16 + 0.5 / 16);
  // An unmarked window: alpha = 15/16 * alpha.
  const double before = d.alpha();
  const uint64_t window = d.window_bytes();
  uint64_t acked = 0;
  while (acked < window) {
    d.on_ack(sample(Time::us(100), Time::us(10), 4096));
    acked += 4096;
  }
  EXPECT_DOUBLE_EQ(d.alpha(), before * 15 / 16);
}

TEST(Dctcp, CongestionAvoidanceAddsAnMssPerWindowAndTimeoutsRestart) {
  Dctcp d(dctcp_4k());
  d.on_loss(Time::us(1));  // cwnd 40960 * (1 - 1/2) = 20480, ssthresh with it
  EXPECT_EQ(d.window_bytes(), 20480u);
  d.on_ack(sample(Time::us(2), Time::us(10), 20480));  // one window acknowledged: + 1 mss
  EXPECT_EQ(d.window_bytes(), 20480u + 4096);
  d.on_timeout(Time::us(3));
  EXPECT_EQ(d.window_bytes(), 2u * 4096);  // the minimum window, slow start again
  EXPECT_TRUE(d.in_slow_start());
  DctcpParams bad = dctcp_4k();
  bad.g = 0;
  EXPECT_THROW(Dctcp{bad}, Error);
}

}  // namespace
}  // namespace bifrost::transport
