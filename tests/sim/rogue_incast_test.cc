// RoGUE in the simulator, on what plain RoCE cannot do: a 4 -> 1 incast of large flows at
// 10 Gb/s through a switch without PFC and with a buffer far below the flows. After slow start
// RoGUE must run the bottleneck near the wire's goodput without a drop, its queue bounded by
// the batches the senders keep in flight; plain RC QPs through the same switch drop.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "bifrost/sim/network.h"
#include "bifrost/sim/rnic_flows.h"
#include "bifrost/sim/topology/graph.h"
#include "bifrost/sim/transport_flows.h"
#include "lossy_fabric.h"
#include "scenario_text.h"

namespace bifrost::sim {
namespace {

constexpr uint32_t kSenders = 4;
constexpr uint32_t kMtu = 2048;
// The paper posts 128 MB verbs; 32 MB keeps this test short and still 32 buffers' worth.
constexpr uint64_t kFlowBytes = uint64_t{32} << 20;
constexpr Time kSlowStart = Time::ms(10);  // well past the window's first congestion signal

std::string incast_scenario() {
  return "[simulation]\nmtu = " + std::to_string(kMtu) +
         "\n[topology]\nkind = \"star\"\nhosts = 5\nhost_rate = \"10Gbps\"\n"
         "host_delay = \"1us\"\n[switch]\nbuffer = \"1MB\"\n";
}

struct Incast {
  explicit Incast(std::optional<transport::rogue::QpType> rogue)
      : scenario(testing::parse(incast_scenario())),
        network(kernel, topology::describe(scenario.topology),
                testing::lossy_network_config(scenario)) {
    TransportFlowsConfig c;
    c.transport.mtu = kMtu;
    if (rogue) {
      transport::rogue::RogueConfig r;
      r.qp_type = *rogue;
      r.mtu = kMtu;
      r.line_rate = Rate::Gbps(10);
      c.rogue = r;
      rogue_flows = std::make_unique<TransportFlows>(kernel, network, c);
    } else {
      RnicFlowsConfig p;
      p.mtu = kMtu;
      plain_flows = std::make_unique<RnicFlows>(kernel, network, p);
    }
    for (uint32_t src = 1; src <= kSenders; ++src) {
      workload::Flow f;
      f.id = src - 1;
      f.src = src;
      f.dst = 0;
      f.size = Bytes(kFlowBytes);
      if (rogue_flows) {
        rogue_flows->add(f);
      } else {
        plain_flows->add(f);
      }
    }
  }
  uint64_t drops() const { return testing::switch_drops(network); }
  // The longest egress queue of the switch: the port toward the receiver in an incast.
  uint64_t queue_bytes() const {
    net::Switch& sw = *network.switches().front();
    uint64_t longest = 0;
    for (uint32_t p = 0; p < sw.port_count(); ++p) {
      longest = std::max(longest, sw.egress(p).total_queue_bytes().count());
    }
    return longest;
  }
  size_t completed() const {
    return rogue_flows ? rogue_flows->completed() : plain_flows->completed();
  }
  Time last_finish() const {
    Time t;
    for (const RnicFlowRecord& r : rogue_flows->records()) t = std::max(t, r.finish);
    return t;
  }

  scenario::Scenario scenario;
  EventKernel kernel;
  Network network;
  std::unique_ptr<TransportFlows> rogue_flows;
  std::unique_ptr<RnicFlows> plain_flows;
};

class RogueIncast : public ::testing::TestWithParam<transport::rogue::QpType> {};

TEST_P(RogueIncast, NoDropAndAShortQueueAfterSlowStart) {
  Incast b(GetParam());
  b.kernel.run_until(kSlowStart);
  const uint64_t drops_in_slow_start = b.drops();
  std::vector<uint64_t> queue;
  while (b.completed() == 0 && b.kernel.now() < Time::s(2)) {
    b.kernel.run_until(b.kernel.now() + Time::us(20));
    queue.push_back(b.queue_bytes());
  }
  while (b.completed() < kSenders && b.kernel.now() < Time::s(2)) {
    b.kernel.run_until(b.kernel.now() + Time::ms(1));
  }
  ASSERT_EQ(b.completed(), kSenders);
  EXPECT_EQ(b.drops(), drops_in_slow_start) << "drops after slow start";
  // Goodput: the flows' bytes over the time the last one took, against the wire's payload
  // rate (MTU payload over MTU plus RoCEv2 framing, preamble and gap).
  const double wire_payload_gbps =
      10.0 * kMtu / (kMtu + transport::kRoceV2MeteredHeaderBytes + 4 + 20);
  const double goodput_gbps = kSenders * kFlowBytes * 8.0 / b.last_finish().seconds() / 1e9;
  EXPECT_GE(goodput_gbps, 0.95 * wire_payload_gbps);
  // Queue p99 while all four run: at most the batches the senders may keep in flight whatever
  // their windows, min_batches (2) of 64 KiB each. The tighter bound N * beta * MTU + 2 batches
  // (164 KB here) does not hold, and cannot with the paper's pacing at this base RTT (about
  // 8 us): Vegas cannot see diff > beta while cwnd <= beta packets, so each window stays above
  // beta packets and each rate above beta * MTU / base RTT, about 5 Gb/s, and four of them
  // oversubscribe the port (docs/transport.md, "RoGUE", measured p99 340 KB over RC, 230 KB over
  // UC). What holds is the batch bound.
  ASSERT_FALSE(queue.empty());
  std::sort(queue.begin(), queue.end());
  const uint64_t p99 = queue[queue.size() * 99 / 100];
  fmt::print(
      "goodput {:.2f} of {:.2f} Gb/s, bottleneck queue p99 {} B (N*beta*MTU + 2 batches: {})\n",
      goodput_gbps, wire_payload_gbps, p99, kSenders * 4 * kMtu + 2 * 64 * 1024);
  EXPECT_LE(p99, uint64_t{kSenders} * 2 * 64 * 1024);
}

INSTANTIATE_TEST_SUITE_P(QpTypes, RogueIncast,
                         ::testing::Values(transport::rogue::QpType::rc,
                                           transport::rogue::QpType::uc),
                         [](const auto& type) {
                           return type.param == transport::rogue::QpType::rc ? "rc" : "uc";
                         });

TEST(RogueIncast, PlainRcDropsInTheSameIncast) {
  Incast b(std::nullopt);
  b.kernel.run_until(Time::ms(20));
  EXPECT_GT(b.drops(), 0u);
}

}  // namespace
}  // namespace bifrost::sim
