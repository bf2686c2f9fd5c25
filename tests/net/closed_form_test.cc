// One flow on an empty store-and-forward path must finish exactly when the closed form says,
// to the picosecond. Every expected value is worked out by hand below, not by the simulator.
//
// The flow: 10,000 payload bytes at MTU 1024 = 10 RC WRITE packets:
//   FIRST  1024 B: frame 14+20+8+(12+16)+1024+4+4 = 1102, wire 1102+20 = 1122 bytes
//   MIDDLE 1024 B (8 of them): frame 1086, wire 1106 bytes
//   LAST    784 B: frame 846, wire 866 bytes
//   all wire bytes: 1122 + 8 x 1106 + 866 = 10,836
//
// Rounding rule: every frame's wire time is rounded up to the next picosecond on its own
// (serialization_time), and the flow's times are sums of those rounded times.
//
// With equal link rates and H links (H - 1 switches), frame i leaves switch j at
// host_end(i) + (delays so far) + j x (largest wire time among frames 1..i), so the flow ends at
//   sum of wire times + (H - 1) x largest wire time + propagations + switch latencies.
// The largest frame here is the FIRST (it carries the RETH): the "last frame's serialization"
// of the textbook formula holds only when the last frame is the largest.
#include <gtest/gtest.h>

#include "bifrost/net/line_rate_flows.h"
#include "net/net_fixture.h"

namespace bifrost::net {
namespace {

constexpr uint64_t kFlowBytes = 10'000;
constexpr Time kStart = Time::us(3);
constexpr Time kSwitchLatency = Time::ns(500);

SwitchConfig two_port_switch(const char* name) {
  SwitchConfig c;
  c.name = name;
  c.ports = 2;
  c.processing_latency = kSwitchLatency;
  return c;
}

// Runs the flow from hosts[0] to hosts[1] and returns its completion time.
Time run_flow(testing::Network& net) {
  LineRateFlows flows(net.kernel, 1024);
  const uint32_t id = flows.add(LineRateFlowSpec{.src = &net.hosts[0],
                                                 .dst = &net.hosts[1],
                                                 .bytes = kFlowBytes,
                                                 .start = kStart,
                                                 .priority = 3});
  net.kernel.run();
  const LineRateFlowRecord& f = flows.flow(id);
  EXPECT_TRUE(f.complete);
  EXPECT_EQ(f.bytes_received, kFlowBytes);
  EXPECT_EQ(f.packets_received, 10u);
  EXPECT_EQ(f.out_of_order, 0u);
  EXPECT_EQ(f.first_byte_sent, kStart) << "an idle NIC starts at once";
  return f.completion_time();
}

// A chain host - switch - ... - switch - host, with the given rates and delays per link.
void build_chain(testing::Network& net, const std::vector<Rate>& rates,
                 const std::vector<Time>& delays) {
  Host& a = net.add_host(0);
  Host& b = net.add_host(1);
  const std::size_t links = rates.size();
  if (links == 1) {
    net.connect(a.port(), b.port(), rates[0], delays[0]);
    return;
  }
  for (std::size_t s = 0; s + 1 < links; ++s) {
    Switch& sw = net.add_switch(two_port_switch("s"));
    sw.routes().add_route(b.address(), {1});
  }
  net.connect(a.port(), net.switches[0].port(0), rates[0], delays[0]);
  for (std::size_t s = 0; s + 2 < links; ++s) {
    net.connect(net.switches[s].port(1), net.switches[s + 1].port(0), rates[s + 1], delays[s + 1]);
  }
  net.connect(net.switches[links - 2].port(1), b.port(), rates[links - 1], delays[links - 1]);
}

TEST(ClosedFormFct, OneLink) {
  testing::Network net;
  build_chain(net, {Rate::Gbps(100)}, {Time::us(1)});
  // 100 Gb/s: 80 ps per byte, exact. 10,836 x 80 = 866,880; + 1 us propagation.
  EXPECT_EQ(run_flow(net), Time::ps(1'866'880));
}

TEST(ClosedFormFct, TwoLinksOneSwitch) {
  testing::Network net;
  build_chain(net, {Rate::Gbps(100), Rate::Gbps(100)}, {Time::us(1), Time::us(1)});
  // 866,880 + 1 x 89,760 (FIRST: 1122 x 80) + 2 x 1,000,000 + 500,000 = 3,456,640.
  EXPECT_EQ(run_flow(net), Time::ps(3'456'640));
}

TEST(ClosedFormFct, FourLinksThreeSwitches) {
  testing::Network net;
  build_chain(net, {Rate::Gbps(100), Rate::Gbps(100), Rate::Gbps(100), Rate::Gbps(100)},
              {Time::us(1), Time::us(2), Time::ns(500), Time::ns(1500)});
  // 866,880 + 3 x 89,760 = 269,280 + propagation 5,000,000 + 3 x 500,000 = 7,636,160.
  EXPECT_EQ(run_flow(net), Time::ps(7'636'160));
}

TEST(ClosedFormFct, SlowLastLinkIsTheBottleneck) {
  testing::Network net;
  build_chain(net, {Rate::Gbps(100), Rate::Gbps(40)}, {Time::us(1), Time::us(1)});
  // The FIRST frame reaches the switch at 89,760 + 1,000,000 + 500,000 = 1,589,760; from then
  // the 40 Gb/s port (200 ps per byte) is never idle, frames arriving every ~88 ns while each
  // takes ~221 ns: 10,836 x 200 = 2,167,200. Plus the last link's 1,000,000: 4,756,960.
  EXPECT_EQ(run_flow(net), Time::ps(4'756'960));
}

TEST(ClosedFormFct, SlowFirstLinkIsTheBottleneck) {
  testing::Network net;
  build_chain(net, {Rate::Gbps(40), Rate::Gbps(100)}, {Time::us(1), Time::us(1)});
  // The host sends all frames at 40 Gb/s: 2,167,200. Frames arrive at the switch every 173 ns
  // or more and leave in at most 89.76 ns, so the LAST (866 x 80 = 69,280) finds the port idle:
  // 2,167,200 + 1,000,000 + 500,000 + 69,280 + 1,000,000 = 4,736,480.
  EXPECT_EQ(run_flow(net), Time::ps(4'736'480));
}

TEST(ClosedFormFct, EachFrameRoundsUpToAWholePicosecond) {
  testing::Network net;
  build_chain(net, {Rate::Gbps(30)}, {Time::us(1)});
  // At 30 Gb/s a byte takes 266.67 ps. Per frame, rounded up:
  //   1122 B: 8976 bits / 30 Gb/s = 299,200 ps exactly
  //   1106 B: 8848 bits / 30 Gb/s = 294,933.33 -> 294,934 ps (x 8 = 2,359,472)
  //    866 B: 6928 bits / 30 Gb/s = 230,933.33 -> 230,934 ps
  // Sum 2,889,606 (the unrounded total would be 2,889,600); + 1,000,000 = 3,889,606.
  EXPECT_EQ(run_flow(net), Time::ps(3'889'606));
}

}  // namespace
}  // namespace bifrost::net
