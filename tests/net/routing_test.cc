// Routing: ECMP spreads flows evenly, a new source port moves a flow with probability about
// (n - 1) / n, static (source, destination) routes override ECMP; end to end through switches.
#include "bifrost/net/routing_table.h"

#include <gtest/gtest.h>

#include <array>

#include "bifrost/core/error.h"
#include "bifrost/core/rng.h"
#include "bifrost/net/line_rate_flows.h"
#include "net/net_fixture.h"

namespace bifrost::net {
namespace {

world::Packet packet_of(uint32_t src_ip, uint32_t dst_ip, uint16_t src_port) {
  world::Packet p;
  p.src = {world::Ipv4{src_ip}, src_port};
  p.dst = {world::Ipv4{dst_ip}, 4791};
  return p;
}

constexpr uint64_t kSeed = 0x5EED;
const world::Ipv4 kDst = world::Ipv4::of(10, 9, 9, 9);

// Pearson's statistic of observed counts against a uniform expectation.
template <std::size_t N>
double chi_square_uniform(const std::array<int, N>& counts, int total) {
  const double expected = static_cast<double>(total) / N;
  double chi2 = 0;
  for (int c : counts) chi2 += (c - expected) * (c - expected) / expected;
  return chi2;
}

TEST(Ecmp, FlowsSpreadEvenlyOverEqualCostPorts) {
  RoutingTable table;
  table.add_route(kDst, {10, 11, 12, 13});
  RandomStream rng(1, "ecmp-flows");
  std::array<int, 4> counts{};
  constexpr int kFlows = 8000;
  for (int i = 0; i < kFlows; ++i) {
    const auto src = static_cast<uint32_t>(0x0A000000 | rng.uniform_int(1, 4000));
    const auto port = static_cast<uint16_t>(rng.uniform_int(49152, 65535));
    ++counts[table.lookup(packet_of(src, kDst.value, port), kSeed) - 10];
  }
  // Chi-square with 3 degrees of freedom: the 0.1% critical value is 16.27.
  EXPECT_LT(chi_square_uniform(counts, kFlows), 16.27);
}

TEST(Ecmp, SameFlowAlwaysTakesTheSamePort) {
  RoutingTable table;
  table.add_route(kDst, {0, 1, 2, 3, 4, 5, 6, 7});
  const world::Packet p = packet_of(0x0A000001, kDst.value, 50000);
  const uint32_t port = table.lookup(p, kSeed);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(table.lookup(p, kSeed), port);
}

TEST(Ecmp, NewSourcePortMovesAFlowWithProbabilityAboutNMinusOneOverN) {
  for (uint32_t n : {2u, 4u, 8u}) {
    RoutingTable table;
    std::vector<uint32_t> ports;
    for (uint32_t i = 0; i < n; ++i) ports.push_back(i);
    table.add_route(kDst, ports);
    RandomStream rng(2, "ecmp-moves");
    int moved = 0;
    constexpr int kFlows = 10'000;
    for (int i = 0; i < kFlows; ++i) {
      const auto src = static_cast<uint32_t>(0x0A000000 | rng.uniform_int(1, 4000));
      const auto before = static_cast<uint16_t>(rng.uniform_int(49152, 65535));
      auto after = static_cast<uint16_t>(rng.uniform_int(49152, 65535));
      if (after == before) ++after;
      moved += table.lookup(packet_of(src, kDst.value, before), kSeed) !=
               table.lookup(packet_of(src, kDst.value, after), kSeed);
    }
    const double expected = static_cast<double>(n - 1) / n;
    // Binomial standard deviation is at most 0.005 here; allow 5 of them.
    EXPECT_NEAR(static_cast<double>(moved) / kFlows, expected, 0.025) << n << " paths";
  }
}

TEST(Ecmp, SwitchesWithDifferentSeedsChooseIndependently) {
  RoutingTable table;
  table.add_route(kDst, {0, 1, 2, 3});
  RandomStream rng(3, "ecmp-seeds");
  int same = 0;
  constexpr int kFlows = 10'000;
  for (int i = 0; i < kFlows; ++i) {
    const world::Packet p = packet_of(static_cast<uint32_t>(rng.next_u64()), kDst.value,
                                      static_cast<uint16_t>(rng.next_u64()));
    same += table.lookup(p, 1) == table.lookup(p, 2);
  }
  EXPECT_NEAR(static_cast<double>(same) / kFlows, 0.25, 0.025) << "no polarization";
}

TEST(Routing, StaticSourceRouteOverridesEcmpForThatPairOnly) {
  RoutingTable table;
  table.add_route(kDst, {0, 1, 2, 3});
  const world::Ipv4 pinned = world::Ipv4::of(10, 0, 0, 7);
  table.add_static_route(pinned, kDst, 2);
  std::array<int, 4> others{};
  for (uint16_t port = 1000; port < 1400; ++port) {
    EXPECT_EQ(table.lookup(packet_of(pinned.value, kDst.value, port), kSeed), 2u);
    ++others[table.lookup(packet_of(0x0A000008, kDst.value, port), kSeed)];
  }
  for (int c : others) EXPECT_GT(c, 50) << "other sources still use every path";
}

TEST(Routing, DefaultRouteAndMissingRoute) {
  RoutingTable table;
  table.add_route(kDst, {4});
  EXPECT_EQ(table.lookup(packet_of(1, 0x0B000001, 1), kSeed), kNoPort);
  table.set_default_route({9});
  EXPECT_EQ(table.lookup(packet_of(1, 0x0B000001, 1), kSeed), 9u);
  EXPECT_EQ(table.lookup(packet_of(1, kDst.value, 1), kSeed), 4u);
  EXPECT_EQ(table.ports_for(kDst), (std::vector<uint32_t>{4}));
  EXPECT_THROW(table.add_route(kDst, {}), Error);
}

TEST(Routing, ManyRoutesAreAllFound) {
  RoutingTable table;
  for (uint32_t i = 0; i < 5000; ++i) table.add_route(world::Ipv4{0x0A000000 + i}, {i % 64});
  for (uint32_t i = 0; i < 5000; ++i) {
    EXPECT_EQ(table.lookup(packet_of(1, 0x0A000000 + i, 1), kSeed), i % 64);
  }
}

// Host 0 -> s0 -> {s1..s4} -> s5 -> host 1: four equal-cost paths through real switches.
struct FourPaths {
  testing::Network net;
  Host& src = net.add_host(0);
  Host& dst = net.add_host(1);
  FourPaths() {
    SwitchConfig edge;
    edge.ports = 5;
    edge.seed = 11;
    Switch& s0 = net.add_switch(edge);
    for (int i = 0; i < 4; ++i) {
      SwitchConfig mid;
      mid.ports = 2;
      mid.seed = 20 + static_cast<uint64_t>(i);
      net.add_switch(mid).routes().add_route(dst.address(), {1});
    }
    edge.seed = 12;
    Switch& s5 = net.add_switch(edge);
    s0.routes().add_route(dst.address(), {1, 2, 3, 4});
    s5.routes().add_route(dst.address(), {4});
    net.connect(src.port(), s0.port(0), Rate::Gbps(100), Time::us(1));
    for (uint32_t i = 0; i < 4; ++i) {
      net.connect(s0.port(i + 1), net.switches[i + 1].port(0), Rate::Gbps(100), Time::us(1));
      net.connect(net.switches[i + 1].port(1), s5.port(i), Rate::Gbps(100), Time::us(1));
    }
    net.connect(s5.port(4), dst.port(), Rate::Gbps(100), Time::us(1));
  }
  std::array<int, 4> packets_per_path() const {
    std::array<int, 4> n{};
    for (int i = 0; i < 4; ++i) {
      n[i] = static_cast<int>(
          net.switches[static_cast<std::size_t>(i) + 1].counters().forwarded_packets);
    }
    return n;
  }
};

TEST(Ecmp, FlowsThroughSwitchesUseAllPathsAndStayInOrder) {
  FourPaths t;
  LineRateFlows flows(t.net.kernel, 1024);
  constexpr int kFlows = 400;
  for (int i = 0; i < kFlows; ++i) {
    flows.add(LineRateFlowSpec{.src = &t.src,
                               .dst = &t.dst,
                               .bytes = 3 * 1024,
                               .src_port = static_cast<uint16_t>(50000 + i)});
  }
  t.net.kernel.run();
  EXPECT_EQ(flows.completed(), static_cast<std::size_t>(kFlows));
  std::array<int, 4> flows_per_path{};
  const auto packets = t.packets_per_path();
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(packets[i] % 3, 0) << "all three packets of a flow take one path";
    flows_per_path[i] = packets[i] / 3;
  }
  EXPECT_LT(chi_square_uniform(flows_per_path, kFlows), 16.27);
  for (const auto& f : flows.flows()) EXPECT_EQ(f.out_of_order, 0u);
}

TEST(Ecmp, StaticRouteInTheSwitchPinsTheSourceAddressToOnePath) {
  FourPaths t;
  t.net.switches[0].routes().add_static_route(t.src.address(), t.dst.address(), 3);
  LineRateFlows flows(t.net.kernel, 1024);
  for (int i = 0; i < 50; ++i) {
    flows.add(LineRateFlowSpec{
        .src = &t.src, .dst = &t.dst, .bytes = 1024, .src_port = static_cast<uint16_t>(50000 + i)});
  }
  t.net.kernel.run();
  EXPECT_EQ(t.packets_per_path(), (std::array<int, 4>{0, 0, 50, 0}));
}

TEST(Routing, SwitchCountsPacketsWithoutRoute) {
  FourPaths t;
  LineRateFlows flows(t.net.kernel, 1024);
  Host& stranger = t.net.add_host(5);  // unconnected: no switch has a route to it
  flows.add(LineRateFlowSpec{.src = &t.src, .dst = &stranger, .bytes = 2048});
  t.net.kernel.run();
  EXPECT_EQ(t.net.switches[0].counters().drops[DropReason::kNoRoute], 2u);
}

}  // namespace
}  // namespace bifrost::net
