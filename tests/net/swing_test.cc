// SWING (docs/net.md, "SWING"): the relay rule's literal numbers, the quanta conversion, the
// configuration errors, and the cases that must fail as the sizing says: a relay buffer below
// swing_relay_buffer, or a local headroom below the short link's bound, overflows; and the
// relay keeps the long link's throughput where the same relay deciding on its own thresholds
// (the paper's trigger, SwingTrigger::kOwnThreshold) lets the drain run dry after every restart;
// the two triggers: the relayed pause leaves with almost nothing queued at the relay, the
// paper's when the relay's own queue reaches XOFF.
#include <gtest/gtest.h>

#include <memory>

#include "bifrost/core/error.h"
#include "net/swing_fixture.h"

namespace bifrost::net {
namespace {

using testing::kDciPrio;
using testing::kMaxFrame;
using testing::SwingBench;

TEST(SwingSizing, RelayBufferIsPfcHeadroomWithJitterAddedEachWay) {
  // 100 Gb/s, 20 us, 500 ns: 2 x 1102 + bytes_in(40 us + 500 ns + T(1122) + T(84)), and
  // T(1122) = 89,760 ps, T(84) = 6,720 ps: bytes_in(40,596,480 ps) = 507,456.
  const SwingLinkParams link{.rate = Rate::Gbps(100),
                             .propagation = Time::us(20),
                             .relay_latency = Time::ns(500),
                             .max_frame_bytes = kMaxFrame};
  EXPECT_EQ(swing_relay_buffer(link), Bytes(509'660));
  SwingLinkParams jittery = link;
  jittery.jitter = Time::ns(5);  // 10 ns more of 12.5 bytes/ns
  EXPECT_EQ(swing_relay_buffer(jittery), Bytes(509'785));
  // Topology A: 100 Gb/s over 80 km (400 us), latency 0: one round trip, 10.0 MB.
  const SwingLinkParams a{
      .rate = Rate::Gbps(100), .propagation = Time::us(400), .max_frame_bytes = kMaxFrame};
  EXPECT_EQ(swing_relay_buffer(a), Bytes(10'003'410));
  // An access link of 1 us: 2 x 1102 + bytes_in(2 us + T(1122) + T(84)) = 2,204 + 26,206.
  EXPECT_EQ(pfc_headroom_bound({Rate::Gbps(100), Time::us(1), Time::zero(), kMaxFrame, kMaxFrame}),
            Bytes(28'410));
}

TEST(SwingSizing, RelayedQuantaLastAtLeastAsLong) {
  EXPECT_EQ(relayed_quanta(0xFFFF, Rate::Gbps(100), Rate::Gbps(100)), 0xFFFF);
  EXPECT_EQ(relayed_quanta(0, Rate::Gbps(100), Rate::Gbps(400)), 0);
  EXPECT_EQ(relayed_quanta(1000, Rate::Gbps(25), Rate::Gbps(100)), 4000);
  EXPECT_EQ(relayed_quanta(1001, Rate::Gbps(400), Rate::Gbps(100)), 251);  // rounded up
  EXPECT_EQ(relayed_quanta(1, Rate::Gbps(400), Rate::Gbps(100)), 1);
  EXPECT_EQ(relayed_quanta(20000, Rate::Gbps(100), Rate::Gbps(400)), 0xFFFF);  // capped
}

TEST(SwingInstall, RejectsABufferBelowTheRuleAndBadThresholds) {
  SwingBench bench(Rate::Gbps(100));
  SwingConfig c = bench.config;
  c.buffer = swing_relay_buffer(bench.link()) - Bytes(1);
  EXPECT_THROW(install_swing_relay(bench.net.kernel, c, bench.b, bench.sw.egress(0),
                                   bench.a.egress(SwingRelay::kRemotePort)),
               Error);
  c = bench.config;
  c.xon = c.xoff + Bytes(1);
  EXPECT_THROW(install_swing_relay(bench.net.kernel, c, bench.b, bench.sw.egress(0),
                                   bench.a.egress(SwingRelay::kRemotePort)),
               Error);
  // The two upstreams swapped: not the far ends of the relay's links.
  EXPECT_THROW(install_swing_relay(bench.net.kernel, bench.config, bench.b,
                                   bench.a.egress(SwingRelay::kRemotePort), bench.sw.egress(0)),
               Error);
  EXPECT_THROW(bench.b.egress(2), Error);
}

TEST(SwingInstall, RejectsALocalLinkSlowerThanTheLongOne) {
  testing::Network net;
  SwingRelay relay(net.kernel, testing::relay_config("R"));
  SwingRelay far(net.kernel, testing::relay_config("F"));
  Host& h = net.add_host(0);
  net.connect(h.port(), relay.port(SwingRelay::kLocalPort), Rate::Gbps(25), Time::us(1));
  net.connect(far.port(SwingRelay::kRemotePort), relay.port(SwingRelay::kRemotePort),
              Rate::Gbps(100), Time::us(20));
  EXPECT_THROW(install_swing_relay(net.kernel, SwingConfig{}, relay, h.nic(),
                                   far.egress(SwingRelay::kRemotePort)),
               Error);
}

TEST(SwingRelay, ForwardsBothWaysAndRelaysEveryPauseAndResume) {
  SwingBench bench(Rate::Gbps(100));
  const SwingPoints points = bench.install_swing();
  bench.flows.add(LineRateFlowSpec{
      .src = &bench.sender, .dst = &bench.sink, .bytes = 3'000'000, .priority = kDciPrio});
  bench.flows.add(
      LineRateFlowSpec{.src = &bench.reverse, .dst = &bench.sender, .bytes = 1'000'000});
  bench.net.kernel.run_until(Time::us(30));
  bench.drain->set_ready(false);
  bench.net.kernel.run_until(Time::us(300));
  bench.drain->set_ready(true);
  bench.net.kernel.run_until(Time::ms(2));
  for (const auto& f : bench.flows.flows()) {
    EXPECT_EQ(f.bytes_received, f.spec.bytes);
    EXPECT_TRUE(f.complete);
  }
  EXPECT_EQ(bench.drops(), 0u);
  // D paused B, B passed it on to A, A's backlog paused the sender.
  const auto& relayed = points.relay->counters();
  EXPECT_GT(relayed.pauses_relayed[kDciPrio], 0u);
  EXPECT_GT(relayed.resumes_relayed[kDciPrio], 0u);
  EXPECT_GT(points.remote_gate->counters().pause_frames_received[kDciPrio], 0u);
  const auto* sender_gate = dynamic_cast<const PfcGate*>(bench.sender.nic().gate());
  ASSERT_NE(sender_gate, nullptr);
  EXPECT_GT(sender_gate->counters().pause_frames_received[kDciPrio], 0u);
  EXPECT_FALSE(sender_gate->paused(kDciPrio));  // resumed once the drain restarted
}

// Stops the drain after the link is full and keeps it stopped for two round trips.
uint64_t stop_for_two_round_trips(SwingBench& bench) {
  bench.backlog_sender();
  bench.net.kernel.run_until(Time::us(300));
  bench.drain->set_ready(false);
  bench.net.kernel.run_until(Time::us(400));
  return bench.b.counters().drops[DropReason::kHeadroomExceeded];
}

TEST(SwingNegative, RelayBufferSizedForAShorterLinkOverflowsWhenTheDrainStops) {
  SwingBench bench(Rate::Gbps(100));
  SwingLinkParams shorter = bench.link();
  shorter.propagation = shorter.propagation - Time::us(4);  // 100 KB short of the round trip
  auto relay = std::make_unique<PauseRelayIngress>(
      bench.config.priorities, swing_relay_buffer(shorter), bench.b.egress(SwingRelay::kRemotePort),
      bench.b.egress(SwingRelay::kLocalPort));
  bench.b.set_control_listener(SwingRelay::kLocalPort, relay.get());
  bench.b.set_ingress_flow_control(SwingRelay::kRemotePort, std::move(relay));
  install_pfc_gate(bench.net.kernel, bench.a.egress(SwingRelay::kRemotePort));
  install_swing_relay(bench.net.kernel, bench.config, bench.a, bench.sender.nic(),
                      bench.b.egress(SwingRelay::kRemotePort));
  bench.install_switch_pfc();
  EXPECT_GT(stop_for_two_round_trips(bench), 0u);
}

TEST(SwingNegative, TheSameStopWithTheRuleLosesNothing) {
  SwingBench bench(Rate::Gbps(100));
  bench.install_swing();
  EXPECT_EQ(stop_for_two_round_trips(bench), 0u);
  EXPECT_EQ(bench.drops(), 0u);
  EXPECT_GT(bench.relay_peak(), swing_relay_buffer(bench.link()) - Bytes(20'000));
}

TEST(SwingNegative, LocalHeadroomBelowTheShortLinkBoundOverflows) {
  SwingBench bench(Rate::Gbps(100));
  bench.config.local_headroom = Bytes(5 * kMaxFrame);  // the bound for 1 us is 34,660 bytes
  bench.install_swing();
  stop_for_two_round_trips(bench);
  EXPECT_GT(bench.a.counters().drops[DropReason::kHeadroomExceeded], 0u);
}

// Bytes the DCI switch drains in a 400 us ready period that follows a 200 us stop, repeated.
uint64_t drained_after_restarts(SwingBench& bench) {
  bench.backlog_sender();
  bench.net.kernel.run_until(Time::us(300));
  uint64_t ready_bytes = 0;
  Time t = Time::us(300);
  for (int cycle = 0; cycle < 4; ++cycle) {
    bench.drain->set_ready(false);
    t = t + Time::us(200);
    bench.net.kernel.run_until(t);
    bench.drain->set_ready(true);
    const uint64_t before = bench.drained();
    t = t + Time::us(400);
    bench.net.kernel.run_until(t);
    ready_bytes += bench.drained() - before;
  }
  return ready_bytes;
}

TEST(SwingThroughput, RelayKeepsTheDrainBusyWherePlainPfcAtTheRelayRunsDry) {
  // Four 400 us ready periods at 100 Gb/s, in frame bytes (1086 of every 1106 wire bytes).
  const uint64_t can = bytes_in(Time::us(1600), Rate::Gbps(100)).count() * 1086 / 1106;

  SwingBench swing(Rate::Gbps(100));
  swing.install_swing();
  const uint64_t relayed = drained_after_restarts(swing);
  EXPECT_EQ(swing.drops(), 0u);
  EXPECT_GE(relayed + 8 * (kMaxFrame + 20), can);

  // The paper's trigger (SwingTrigger::kOwnThreshold) with the same headroom: B pauses A on
  // its own XOFF / XON (198 KB) as a switch would, so it resumes only once its buffer is down
  // to XON, and XON covers less than the round trip.
  SwingBench plain(Rate::Gbps(100));
  plain.config.trigger = SwingTrigger::kOwnThreshold;
  plain.install_swing();
  const uint64_t thresholds = drained_after_restarts(plain);
  EXPECT_EQ(plain.drops(), 0u);
  EXPECT_LT(thresholds + 4 * 100'000, can) << "the relay's own threshold should run dry";
  RecordProperty("swing_fraction", std::to_string(static_cast<double>(relayed) / can));
  RecordProperty("own_threshold_fraction", std::to_string(static_cast<double>(thresholds) / can));
}

// Relay B's buffer when it sends its first frame (a pause) over the long link: a 50 Gb/s drain
// behind D, a backlogged sender, and no other traffic towards A.
Bytes relay_queue_at_first_long_link_pause(SwingTrigger trigger) {
  SwingBench bench(Rate::Gbps(50));
  bench.config.trigger = trigger;
  bench.install_swing();
  bench.backlog_sender();
  const EgressPort& towards_a = bench.b.egress(SwingRelay::kRemotePort);
  for (Time t = Time::zero(); t < Time::us(400); t = t + Time::ns(100)) {
    bench.net.kernel.run_until(t);
    if (towards_a.counters().control_frames_sent > 0) return bench.b.buffer().used();
  }
  ADD_FAILURE() << "relay B never paused A";
  return Bytes(0);
}

TEST(SwingTrigger, RelayedPauseLeavesBeforeTheRelayQueuesXoff) {
  // D pauses B at 198 KB of its own queue; B passes it on at once, with almost nothing queued.
  EXPECT_LT(relay_queue_at_first_long_link_pause(SwingTrigger::kRelaySwitchPauses), Bytes(20'000));
}

TEST(SwingTrigger, OwnThresholdPausesWhenTheRelayQueuesXoff) {
  // The paper's SWING: B pauses A only when its own queue from the long link reaches 198 KB.
  const Bytes queued = relay_queue_at_first_long_link_pause(SwingTrigger::kOwnThreshold);
  EXPECT_GE(queued, Bytes(198'000));
  EXPECT_LT(queued, Bytes(198'000 + 2 * kMaxFrame));
}

TEST(SwingTrigger, OwnThresholdInstallsPfcWithTheRestOfTheBufferAsHeadroom) {
  SwingBench bench(Rate::Gbps(100));
  bench.config.trigger = SwingTrigger::kOwnThreshold;
  bench.config.buffer = Bytes(2'000'000);
  const SwingPoints points = bench.install_swing();
  EXPECT_EQ(points.relay, nullptr);
  ASSERT_NE(points.threshold, nullptr);
  const IngressLimits limits = points.threshold->limits(kDciPrio);
  EXPECT_EQ(limits.headroom, Bytes(2'000'000 - 198'000));
}

TEST(SwingTrigger, OwnThresholdRejectsABufferBelowXoffPlusTheRule) {
  SwingBench bench(Rate::Gbps(100));
  bench.config.trigger = SwingTrigger::kOwnThreshold;
  // Enough for the relayed pause, not for 198 KB of XOFF on top.
  bench.config.buffer = swing_relay_buffer(bench.link()) + Bytes(100'000);
  EXPECT_THROW(install_swing_relay(bench.net.kernel, bench.config, bench.b, bench.sw.egress(0),
                                   bench.a.egress(SwingRelay::kRemotePort)),
               Error);
}

TEST(SwingTrigger, OwnThresholdStopLosesNothing) {
  SwingBench bench(Rate::Gbps(100));
  bench.config.trigger = SwingTrigger::kOwnThreshold;
  bench.install_swing();
  EXPECT_EQ(stop_for_two_round_trips(bench), 0u);
  EXPECT_EQ(bench.drops(), 0u);
  // What crossed the round trip after B's own pause sits beyond its XOFF.
  EXPECT_GT(bench.relay_peak(), swing_relay_buffer(bench.link()) - Bytes(20'000));
}

}  // namespace
}  // namespace bifrost::net
