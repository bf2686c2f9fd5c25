// The scenario runner end to end: topology graphs have the documented shape, a lone flow's
// FCT equals the closed-form ideal exactly (slowdown 1), and an incast under PFC is lossless.
#include "bifrost/sim/simulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/sim/scenario/scenario.h"
#include "bifrost/sim/topology/graph.h"
#include "scenario_text.h"

namespace bifrost::sim {
namespace {

using testing::parse;
using testing::run;

TEST(TopologyGraph, FatTreeCounts) {
  scenario::FatTreeTopology ft;
  ft.k = 4;
  ft.tiers = 3;
  ft.host = {Rate::Gbps(100), Time::us(1)};
  ft.fabric = ft.host;
  const auto g = topology::describe(ft);
  EXPECT_EQ(g.hosts, 16u);                        // k^3/4
  EXPECT_EQ(g.nodes.size() - g.hosts, 4u + 16u);  // (k/2)^2 cores + k pods x k switches
  EXPECT_EQ(g.edges.size(), 16u + 16u + 16u);     // host, ToR-agg and agg-core links
  ft.tiers = 2;
  const auto two = topology::describe(ft);
  EXPECT_EQ(two.hosts, 8u);  // k ToRs x k/2 hosts
  EXPECT_EQ(two.nodes.size() - two.hosts, 4u + 2u);
  EXPECT_EQ(two.edges.size(), 8u + 8u);
}

TEST(TopologyGraph, RejectsOddRadix) {
  scenario::FatTreeTopology ft;
  ft.k = 5;
  EXPECT_THROW(topology::describe(ft), Error);
}

// 100 KB from h0 to h3 over h0-left-right-h3: three 100 Gb/s links of 1 us, MTU 1000.
std::string lone_flow_scenario(const std::string& latency) {
  return R"(
[simulation]
seed = 3
mtu = 1000
[topology]
kind = "dumbbell"
hosts_per_side = 2
host_rate = "100Gbps"
host_delay = "1us"
bottleneck_rate = "100Gbps"
bottleneck_delay = "1us"
[switch]
buffer = "4MB"
latency = ")" +
         latency + R"("
[[workload]]
kind = "incast"
name = "one"
senders = [0]
receiver = 3
size = "100KB"
start = "0us"
)";
}

// Alone on the network the flow must finish exactly at the store-and-forward closed form.
// 100 frames: the first an RDMA WRITE first (RETH, 1000 B payload): 14+20+8+12+16+1000+4+4 =
// 1078 B + 20 B overhead = 1098 B on the wire; 99 more frames (middle, last) of 1062 + 20 =
// 1082 B. At 100 Gb/s a byte takes 80 ps. With equal link rates the critical path of the
// store-and-forward pipeline takes the largest frame, the first, across all three links and
// every other frame across one: (3 x 1098 + 99 x 1082) x 80 ps = 8 832 960 ps, plus three
// propagation delays of 1 us and, per switch crossed, the switch latency.
TEST(Simulation, LoneFlowFinishesAtTheClosedForm) {
  for (const auto& [latency, expected_ps] :
       {std::pair{"0ns", 8'832'960 + 3'000'000}, std::pair{"500ns", 8'832'960 + 4'000'000}}) {
    SCOPED_TRACE(latency);
    const auto s = run(lone_flow_scenario(latency));
    ASSERT_EQ(s.flows, 1u);
    ASSERT_EQ(s.finished, 1u);
    const auto& record = s.metrics.flows.records().front();
    EXPECT_EQ(record.fct().picoseconds(), expected_ps);
    EXPECT_EQ(record.ideal_fct, record.fct());
    EXPECT_DOUBLE_EQ(record.slowdown(), 1.0);
  }
}

// 8 x 500 KB into one 100 Gb/s port of a switch with a 1 MB buffer.
std::string incast_scenario(bool pfc) {
  return testing::star_scenario(pfc, testing::incast_workload());
}

TEST(Simulation, IncastUnderPfcLosesNothing) {
  const auto s = run(incast_scenario(true));
  EXPECT_EQ(s.finished, 8u);
  EXPECT_EQ(s.drops, 0u);
  EXPECT_GT(s.pauses, 0u) << "8 x 500 KB into a 1 MB buffer must pause";
}

TEST(Simulation, IncastWithoutPfcDropsInASmallBuffer) {
  const auto s = run(incast_scenario(false));
  EXPECT_GT(s.drops, 0u);
  EXPECT_LT(s.finished, 8u) << "the line-rate source does not recover lost packets";
  EXPECT_GT(s.metrics.drops.by_reason().count("dynamic_threshold"), 0u);
}

// An incast into host 0 of a k = 4 fat tree from its pod (hosts 1-3) and two others (4-11).
// PFC on every class, or on all but the aggregation-core links (class "core").
std::string pod_incast(bool lossy_core) {
  std::string text = R"(
[simulation]
seed = 3
mtu = 1000
[topology]
kind = "fat_tree"
k = 4
host_rate = "100Gbps"
host_delay = "1us"
[switch]
buffer = "1MB"
[switch.pfc]
[[workload]]
kind = "incast"
name = "incast"
senders = "1..11"
receiver = 0
size = "500KB"
start = "1us"
)";
  if (lossy_core) text += "[switch.flow_control.core]\nkind = \"none\"\n";
  return text;
}

TEST(Simulation, FatTreeCoreLinksTakeTheirOwnFlowControl) {
  const auto everywhere = run(pod_incast(false));
  EXPECT_EQ(everywhere.drops, 0u);
  EXPECT_EQ(everywhere.finished, 11u);
  EXPECT_GT(everywhere.pauses, 0u);
  // Below the core PFC still pauses; the queues it backs up into the aggregation switches
  // overflow where nothing pauses the core.
  const auto lossy_core = run(pod_incast(true));
  EXPECT_GT(lossy_core.pauses, 0u);
  EXPECT_GT(lossy_core.drops, 0u);
}

// The same incasts on soft RNICs (MTU 1024): RC's go-back-N recovers every drop without PFC,
// and under PFC nothing is lost, so nothing is resent.
std::string rnic_incast(bool pfc, const std::string& recovery) {
  std::string text = incast_scenario(pfc);
  text.replace(text.find("mtu = 1000"), 10, "mtu = 1024");
  text += "[nic]\nmodel = \"rnic\"\nrecovery = \"" + recovery + "\"\ntimeout = 4\n";
  return text;
}

TEST(Simulation, RnicFlowsRecoverIncastDropsWithoutPfc) {
  for (const std::string recovery : {"gbn", "irn"}) {
    SCOPED_TRACE(recovery);
    const auto s = run(rnic_incast(false, recovery));
    EXPECT_GT(s.drops, 0u);
    EXPECT_EQ(s.finished, 8u);
    EXPECT_GT(s.retransmitted, 0u);
  }
  const auto lossless = run(rnic_incast(true, "gbn"));
  EXPECT_EQ(lossless.finished, 8u);
  EXPECT_EQ(lossless.drops, 0u);
  EXPECT_EQ(lossless.retransmitted, 0u);
}

// Alone on the network an RNIC flow (one WRITE_WITH_IMM) finishes at its closed form too: the
// NIC keeps the port fed back to back, and the receiver completes when the last byte lands.
TEST(Simulation, RnicLoneFlowFinishesAtTheClosedForm) {
  std::string text = lone_flow_scenario("0ns");
  text.replace(text.find("mtu = 1000"), 10, "mtu = 1024");
  text += "[nic]\nmodel = \"rnic\"\n";
  const auto s = run(text);
  ASSERT_EQ(s.finished, 1u);
  const auto& record = s.metrics.flows.records().front();
  EXPECT_EQ(record.ideal_fct, record.fct());
}

// 100 KB from h0 in DC 0 to h2 in DC 1 over the DCI link, link throughput sampled every 10 us.
// The run ends with its last event (about 25 us in): every frame is sent before the last sample.
std::string two_dc_throughput(const std::string& links) {
  return R"(
[simulation]
mtu = 1000
duration = "1ms"
stop = "duration"
[topology]
kind = "two_dc"
leaves = 1
spines = 1
hosts_per_leaf = 2
dci_rate = "100Gbps"
dci_delay = "5us"
[[workload]]
kind = "incast"
senders = [0]
receiver = 2
size = "100KB"
[metrics]
throughput_interval = "10us"
)" + links;
}

Bytes sampled_bytes(const metrics::ThroughputSeries& series, const std::string& link) {
  const auto& names = series.links();
  const auto it = std::find(names.begin(), names.end(), link);
  if (it == names.end()) throw Error("no throughput series {}", link);
  Bytes total;
  for (const auto& s : series.samples()) {
    if (names[s.link] == *it) total += s.bytes;
  }
  return total;
}

// throughput_links keeps the series of the listed link classes only, and their samples are
// those of a run that samples every link.
TEST(Simulation, ThroughputLinksSampleOnlyTheirClasses) {
  const auto every = run(two_dc_throughput(""));
  const auto dci = run(two_dc_throughput("throughput_links = [\"dci\"]\n"));
  ASSERT_EQ(every.finished, 1u);
  EXPECT_GT(every.metrics.throughput.links().size(), 2u);
  EXPECT_EQ(dci.metrics.throughput.links(),
            (std::vector<std::string>{"dc0.border->dc1.border", "dc1.border->dc0.border"}));
  const Bytes sent = sampled_bytes(every.metrics.throughput, "h0->dc0.leaf0");
  EXPECT_GT(sent, Bytes(100'000)) << "frames carry headers on top of the payload";
  EXPECT_EQ(sampled_bytes(every.metrics.throughput, "dc0.border->dc1.border"), sent);
  EXPECT_EQ(sampled_bytes(dci.metrics.throughput, "dc0.border->dc1.border"), sent);
  EXPECT_EQ(sampled_bytes(dci.metrics.throughput, "dc1.border->dc0.border"), Bytes(0));
  // The same intervals as in the run that samples every link: one per link and 10 us.
  std::size_t intervals = 0;
  for (const auto& s : every.metrics.throughput.samples()) {
    if (every.metrics.throughput.links()[s.link] != "h0->dc0.leaf0") continue;
    EXPECT_EQ(s.end - s.start, Time::us(10));
    ++intervals;
  }
  EXPECT_GE(intervals, 2u);
  EXPECT_EQ(dci.metrics.throughput.samples().size(), 2 * intervals);
}

// The frames a flow sends at time 0 count in the first interval: its first frame leaves h0 at
// once, so h0's link carries every byte the DCI link does (all data frames, before the run
// ends), the first frame (WRITE FIRST, 1,078 bytes) included.
TEST(Simulation, ThroughputCountsFramesSentAtTimeZero) {
  const auto s = run(two_dc_throughput(""));
  // 100 frames of 1,000 payload bytes: 1,078 (WRITE FIRST, with RETH) + 99 x 1,062.
  EXPECT_EQ(sampled_bytes(s.metrics.throughput, "h0->dc0.leaf0"), Bytes(1078 + 99 * 1062));
  const auto& first = s.metrics.throughput.samples().front();
  EXPECT_EQ(first.start, Time::zero());
}

TEST(Simulation, SameSeedSameResults) {
  std::string text = incast_scenario(true);
  text.replace(text.find("start = \"1us\""), 13, "start = \"1us\"\njitter = \"3us\"");
  const auto a = run(text);
  const auto b = run(text);
  ASSERT_EQ(a.metrics.flows.records().size(), b.metrics.flows.records().size());
  for (std::size_t i = 0; i < a.metrics.flows.records().size(); ++i) {
    EXPECT_EQ(a.metrics.flows.records()[i].finish, b.metrics.flows.records()[i].finish);
  }
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.pauses, b.pauses);
}

}  // namespace
}  // namespace bifrost::sim
