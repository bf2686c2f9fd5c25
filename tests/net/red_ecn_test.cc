// RED-style ECN marking: never at or below kmin, always at or above kmax (ECT only), linear in
// between; not-ECT packets are never marked; end to end through a congested switch.
#include "bifrost/net/red_ecn.h"

#include <gtest/gtest.h>

#include "bifrost/core/error.h"
#include "bifrost/net/line_rate_flows.h"
#include "net/net_fixture.h"

namespace bifrost::net {
namespace {

const RedEcnConfig kRed{.enabled = true, .kmin = Bytes(10'000), .kmax = Bytes(50'000), .pmax = 0.2};

TEST(RedEcn, ProbabilityIsZeroBelowKminOneAboveKmaxLinearBetween) {
  const RedMarker m(kRed);
  EXPECT_EQ(m.probability(Bytes(0)), 0.0);
  EXPECT_EQ(m.probability(Bytes(10'000)), 0.0);
  EXPECT_DOUBLE_EQ(m.probability(Bytes(20'000)), 0.05);  // a quarter of the way: pmax / 4
  EXPECT_DOUBLE_EQ(m.probability(Bytes(30'000)), 0.10);
  EXPECT_DOUBLE_EQ(m.probability(Bytes(49'999)), 0.2 * 39'999 / 40'000);
  EXPECT_EQ(m.probability(Bytes(50'000)), 1.0);
  EXPECT_EQ(m.probability(Bytes(1'000'000)), 1.0);
}

TEST(RedEcn, DrawsMatchTheProbability) {
  const RedMarker m(kRed);
  RandomStream rng(42, "red-test");
  constexpr int kDraws = 40'000;
  for (uint64_t q : {0ull, 10'000ull}) {
    for (int i = 0; i < kDraws; ++i) ASSERT_FALSE(m.should_mark(Bytes(q), rng)) << q;
  }
  for (uint64_t q : {50'000ull, 70'000ull}) {
    for (int i = 0; i < kDraws; ++i) ASSERT_TRUE(m.should_mark(Bytes(q), rng)) << q;
  }
  for (uint64_t q : {20'000ull, 40'000ull}) {
    int marked = 0;
    for (int i = 0; i < kDraws; ++i) marked += m.should_mark(Bytes(q), rng);
    const double p = m.probability(Bytes(q));
    const double sd = std::sqrt(p * (1 - p) / kDraws);
    EXPECT_NEAR(static_cast<double>(marked) / kDraws, p, 5 * sd) << q;
  }
}

TEST(RedEcn, DisabledNeverMarksAndBadConfigurationsAreRejected) {
  const RedMarker off(RedEcnConfig{});
  RandomStream rng(1);
  EXPECT_FALSE(off.should_mark(Bytes(1'000'000'000), rng));
  EXPECT_THROW(RedMarker(RedEcnConfig{.enabled = true, .kmin = Bytes(5), .kmax = Bytes(5)}), Error);
  EXPECT_THROW(
      RedMarker(RedEcnConfig{.enabled = true, .kmin = Bytes(1), .kmax = Bytes(5), .pmax = 1.5}),
      Error);
  EXPECT_TRUE(is_ect(1));
  EXPECT_TRUE(is_ect(2));
  EXPECT_FALSE(is_ect(0));
  EXPECT_FALSE(is_ect(3));
}

// Two senders into one receiver at 100 Gb/s each: the egress queue grows to about one flow.
struct Congested {
  testing::Network net;
  LineRateFlows flows{net.kernel, 1024};
  Congested(RedEcnConfig red, bool ect_a, bool ect_b) {
    SwitchConfig c;
    c.ports = 3;
    c.ecn[3] = red;
    Switch& s = net.add_switch(c);
    for (int i = 0; i < 3; ++i) {
      Host& h = net.add_host(i);
      net.connect(h.port(), s.port(static_cast<uint32_t>(i)), Rate::Gbps(100), Time::us(1));
      s.routes().add_route(h.address(), {static_cast<uint32_t>(i)});
    }
    for (int i = 0; i < 2; ++i) {
      flows.add(LineRateFlowSpec{.src = &net.hosts[static_cast<std::size_t>(i)],
                                 .dst = &net.hosts[2],
                                 .bytes = 400 * 1024,
                                 .priority = 3,
                                 .ecn_capable = i == 0 ? ect_a : ect_b});
    }
    net.kernel.run();
  }
};

TEST(RedEcn, CongestedSwitchMarksEctPacketsOnly) {
  Congested t(kRed, /*ect_a=*/true, /*ect_b=*/false);
  EXPECT_GT(t.flows.flow(0).ce_marked, 100u);
  EXPECT_EQ(t.flows.flow(1).ce_marked, 0u) << "not-ECT is never marked";
  EXPECT_EQ(t.net.switches[0].counters().ecn_marked[3], t.flows.flow(0).ce_marked);
  EXPECT_EQ(t.net.switches[0].port_counters(2).ecn_marked[3], t.flows.flow(0).ce_marked);
}

TEST(RedEcn, QueueThatNeverReachesKminIsNeverMarked) {
  // The queue peaks near one flow (~400 KiB); kmin above that leaves every packet unmarked.
  Congested t(
      RedEcnConfig{.enabled = true, .kmin = Bytes::MiB(1), .kmax = Bytes::MiB(2), .pmax = 1.0},
      true, true);
  EXPECT_EQ(t.flows.flow(0).ce_marked + t.flows.flow(1).ce_marked, 0u);
}

TEST(RedEcn, QueueAboveKmaxMarksEveryEctPacketThatFindsIt) {
  // kmin 0, kmax one frame: every packet that finds a frame queued ahead is marked. With two
  // line-rate senders the queue is never empty after the start, so nearly all packets are.
  Congested t(RedEcnConfig{.enabled = true, .kmin = Bytes(0), .kmax = Bytes(1086), .pmax = 0.0},
              true, true);
  const uint64_t marked = t.flows.flow(0).ce_marked + t.flows.flow(1).ce_marked;
  EXPECT_GE(marked, 790u);
  EXPECT_LE(marked, 800u);
}

}  // namespace
}  // namespace bifrost::net
