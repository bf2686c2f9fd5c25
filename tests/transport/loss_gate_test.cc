// The loss gate (cc/loss_gate.h) alone and inside Swift: random loss keeps the window, loss
// with a queue or at a rate no corruption explains cuts it, and without the gate (the paper's
// rule) the same random losses cut.
#include "bifrost/transport/cc/loss_gate.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "bifrost/core/error.h"
#include "bifrost/transport/cc/swift.h"

namespace bifrost::transport {
namespace {

constexpr uint32_t kMtu = 4096;
constexpr double kTolerance = 0.05;  // the product default's
constexpr double kMemory = 128;

TEST(LossGate, ALossBeforeAnythingWasDeliveredIsCongestion) {
  LossGate gate(kTolerance, kMemory, kMtu);
  EXPECT_TRUE(gate.on_loss(false)) << "the rate starts at the tolerance";
}

TEST(LossGate, OneLossInAHundredPacketsIsNeverCongestion) {
  LossGate gate(kTolerance, kMemory, kMtu);
  for (int i = 0; i < 2000; ++i) {
    gate.on_delivered(99 * kMtu);
    EXPECT_FALSE(gate.on_loss(false)) << "loss " << i << ", rate " << gate.loss_rate();
  }
  EXPECT_GT(gate.loss_rate(), 0.008);  // about the loss rate (just after a loss)
  EXPECT_LT(gate.loss_rate(), 0.02);
}

TEST(LossGate, LossesFasterThanTheToleranceAreCongestion) {
  LossGate gate(kTolerance, kMemory, kMtu);
  gate.on_delivered(1000 * kMtu);  // shows a clean path first
  int spared = 0;
  // Then one loss every 10 packets (10%): the first few are spared, then every one cuts.
  for (int i = 0; i < 50; ++i) {
    gate.on_delivered(9 * kMtu);
    const bool congestion = gate.on_loss(false);
    if (!congestion) ++spared;
    if (i >= 10) {
      EXPECT_TRUE(congestion) << "loss " << i;
    }
  }
  EXPECT_GT(spared, 0);
  EXPECT_LT(spared, 10);
}

TEST(LossGate, AQueueMakesAnyLossCongestion) {
  LossGate gate(kTolerance, kMemory, kMtu);
  gate.on_delivered(1000 * kMtu);
  EXPECT_TRUE(gate.on_loss(true));
}

TEST(LossGate, CountsDeliveredBytesInPacketsOfTheMtu) {
  // 1 KiB packets: 50 KiB delivered per loss is 50 packets, a 2% rate, spared; counted in
  // 4 KiB packets it would be about 8%, and cut.
  LossGate small(kTolerance, kMemory, 1024);
  LossGate large(kTolerance, kMemory, 4096);
  bool small_cut = false;
  bool large_cut = false;
  for (int i = 0; i < 500; ++i) {
    small.on_delivered(50 * 1024);
    large.on_delivered(50 * 1024);
    small_cut = small.on_loss(false) || small_cut;
    large_cut = large.on_loss(false) || large_cut;
  }
  EXPECT_FALSE(small_cut);
  EXPECT_TRUE(large_cut);
}

TEST(LossGate, RefusesImpossibleSettings) {
  EXPECT_THROW(LossGate(1.0, kMemory, kMtu), Error);
  EXPECT_THROW(LossGate(-0.1, kMemory, kMtu), Error);
  EXPECT_THROW(LossGate(kTolerance, 1, kMtu), Error);
  EXPECT_THROW(LossGate(kTolerance, kMemory, 0), Error);
}

// A path of 50 us and 100 Gb/s: target 60 us, window one BDP (625 KB) to start, unit 4 KiB.
SwiftParams swift_on_path(bool gate) {
  const CcParams path{.base_rtt = Time::us(50), .bdp_bytes = 625000, .mss = 4096, .mtu = kMtu};
  SwiftParams p = swift_params_for(path);
  EXPECT_EQ(p.random_loss_tolerance, kTolerance);
  EXPECT_EQ(p.loss_gate_memory, kMemory);
  EXPECT_EQ(p.packet_bytes, kMtu);
  p.loss_gate = gate;
  return p;
}

// 1000 packets acknowledged at an RTT of 50 us (no queue), no loss.
void clean_start(Swift& swift) {
  swift.on_ack(AckEvent{.now = Time::us(100), .acked_bytes = 1000 * kMtu, .rtt = Time::us(50)});
}

// Random loss at 1%: every ACK acknowledges 25 packets at an RTT at the target, and every
// fourth ACK also finds one loss. Returns the smallest window seen after a loss.
uint64_t smallest_window_under_random_loss(Swift& swift) {
  uint64_t smallest = swift.window_bytes();
  Time now = Time::us(100);
  for (int i = 0; i < 400; ++i) {
    now += Time::us(10);
    swift.on_ack(AckEvent{.now = now, .acked_bytes = 25 * kMtu, .rtt = Time::us(52)});
    if (i % 4 == 3) {
      swift.on_loss(now);
      smallest = std::min(smallest, swift.window_bytes());
    }
  }
  return smallest;
}

TEST(SwiftLossGate, RandomLossKeepsTheWindow) {
  Swift gated(swift_on_path(true));
  const uint64_t start = gated.window_bytes();
  EXPECT_GE(smallest_window_under_random_loss(gated), start);
  EXPECT_GT(gated.gated_loss_rate(), 0.008);
  EXPECT_LT(gated.gated_loss_rate(), 0.02);
}

TEST(SwiftLossGate, WithoutItRandomLossCutsToTheMinimum) {
  Swift paper(swift_on_path(false));  // the paper's rule: every loss cuts
  EXPECT_EQ(smallest_window_under_random_loss(paper), 4096u);
}

TEST(SwiftLossGate, CongestionLossWithAQueueCutsToTheMinimum) {
  Swift swift(swift_on_path(true));
  clean_start(swift);
  swift.on_ack(AckEvent{.now = Time::us(200), .acked_bytes = kMtu, .rtt = Time::us(90)});
  ASSERT_GT(swift.window_bytes(), 4096u);
  swift.on_loss(Time::us(210));  // a rare loss, but behind a queue
  EXPECT_EQ(swift.window_bytes(), 4096u);
}

TEST(SwiftLossGate, BurstLossWithAStaleRttSampleCuts) {
  // An incast's overflow: the connection's newest RTT sample still sits at the target, but
  // one loss per few packets is more than corruption explains.
  Swift swift(swift_on_path(true));
  clean_start(swift);
  const uint64_t before = swift.window_bytes();
  Time now = Time::us(100);
  int losses = 0;
  while (losses < 20 && swift.window_bytes() > 4096u) {
    now += Time::us(10);
    swift.on_ack(AckEvent{.now = now, .acked_bytes = 2 * kMtu, .rtt = std::nullopt});
    swift.on_loss(now);
    ++losses;
  }
  EXPECT_GT(before, 4096u);
  EXPECT_EQ(swift.window_bytes(), 4096u);
  EXPECT_GT(losses, 2) << "the first losses of a clean connection are spared";
}

TEST(SwiftLossGate, ATimeoutAlwaysCuts) {
  Swift swift(swift_on_path(true));
  clean_start(swift);
  swift.on_timeout(Time::us(200));
  EXPECT_EQ(swift.window_bytes(), 4096u);
}

TEST(SwiftLossGate, ValidateChecksTheGatesSettingsOnlyWhenOn) {
  SwiftParams p = swift_on_path(false);
  p.random_loss_tolerance = 2;
  EXPECT_NO_THROW(p.validate());
  p.loss_gate = true;
  EXPECT_THROW(p.validate(), Error);
}

}  // namespace
}  // namespace bifrost::transport
