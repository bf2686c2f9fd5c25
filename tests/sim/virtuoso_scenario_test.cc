// [transport] kind = "virtuoso" in scenario files: its keys parsed strictly, its paths checked
// against the hosts' aliases, and flows run over it on the multipath testbed: K paths of
// 1 Gb/s behind 10 Gb/s hosts carry a flow in about 1/K of one path's time (Figs. 5, 6).
#include <gtest/gtest.h>

#include <string>

#include "scenario_text.h"
#include "support/error_message.h"

namespace bifrost::sim {
namespace {

using bifrost::testing::error_of;
using testing::parse;
using testing::run;

// Host 0 sends `size` to host 1 over `paths` paths (1 Gb/s each, hosts at 10 Gb/s).
std::string testbed(uint32_t paths, const std::string& transport, const std::string& size = "8MB",
                    uint32_t aliases = 0) {
  return R"(
[simulation]
seed = 2
mtu = 4096
[topology]
kind = "multipath"
paths = )" +
         std::to_string(paths) +
         R"(
host_rate = "10Gbps"
path_rate = "1Gbps"
path_delay = "2us"
host_aliases = )" +
         std::to_string(aliases == 0 ? paths : aliases) + R"(
[routing]
mode = "source"
[switch]
buffer = "32MB"
[nic]
model = "rnic"
[transport]
kind = "virtuoso"
)" + transport +
         R"(
[[workload]]
kind = "incast"
senders = [0]
receiver = 1
size = ")" +
         size + R"("
start = "1us"
)";
}

TEST(VirtuosoScenario, KeysAreParsed) {
  const auto sc = parse(testbed(4,
                                "paths = 4\nblock = \"8KB\"\nsmall_send = \"4KB\"\nprobe = false\n"
                                "probe_size = \"1MB\"\nchunk_search = true\n"
                                "chunk_initial = \"32KB\"\nchunk_step = \"16KB\"\n"
                                "max_send_wr = 8\nrc_timeout = 10\nrc_retry_cnt = 3\n"));
  EXPECT_EQ(sc.transport.kind, scenario::TransportKind::virtuoso);
  const scenario::VirtuosoSpec& v = sc.transport.virtuoso;
  EXPECT_EQ(v.paths, 4u);
  EXPECT_EQ(v.block, Bytes(8000));
  EXPECT_EQ(v.small_send, Bytes(4000));
  EXPECT_FALSE(v.probe);
  EXPECT_EQ(v.probe_size, Bytes(1'000'000));
  EXPECT_TRUE(v.chunk_search);
  EXPECT_EQ(v.chunk_initial, Bytes(32'000));
  EXPECT_EQ(v.chunk_step, Bytes(16'000));
  EXPECT_EQ(v.max_send_wr, 8u);
  EXPECT_EQ(v.rc_timeout, 10);
  EXPECT_EQ(v.rc_retry_cnt, 3);
  EXPECT_FALSE(v.pace_paths);
  EXPECT_TRUE(parse(testbed(4, "paths = 4\npace_paths = true\n")).transport.virtuoso.pace_paths);
}

TEST(VirtuosoScenario, BadValuesNameTheirKey) {
  const auto error = [](const std::string& transport, uint32_t aliases = 0) {
    return error_of([&] { parse(testbed(4, transport, "8MB", aliases)); });
  };
  EXPECT_NE(error("paths = 4\nprobe_size = \"100KB\"\n").find("transport.probe_size"),
            std::string::npos);
  EXPECT_NE(error("paths = 4\nsegment = \"1MB\"\n").find("segment"), std::string::npos);
  EXPECT_NE(error("paths = 0\n").find("transport.paths"), std::string::npos);
  EXPECT_NE(error("paths = 4\nblock = \"128KB\"\n").find("transport.block"), std::string::npos);
  EXPECT_NE(error("paths = 4\n", 2).find("transport.paths"), std::string::npos);
  EXPECT_NE(error("paths = 4\n", 2).find("host_aliases = 2"), std::string::npos);
  EXPECT_NE(error("paths = 4\nprobe = false\npace_paths = true\n").find("transport.pace_paths"),
            std::string::npos);
}

TEST(VirtuosoScenario, KPathsCarryAFlowInAboutOneKthOfTheTime) {
  const RunSummary one = run(testbed(1, "paths = 1\nprobe = false\n"));
  const RunSummary four = run(testbed(4, "paths = 4\nprobe = false\n"));
  ASSERT_EQ(one.finished, 1u);
  ASSERT_EQ(four.finished, 1u);
  EXPECT_EQ(four.transport_unidentified, 0u);
  EXPECT_EQ(four.transport.connections, 1u);
  EXPECT_EQ(four.transport.messages, 1u);
  EXPECT_GE(four.transport.chunks, 4u);  // at least one WR per path
  const double ratio = four.simulated.seconds() / one.simulated.seconds();
  EXPECT_NEAR(ratio, 0.25, 0.025) << one.simulated.seconds() << " s vs " << four.simulated.seconds()
                                  << " s";
  // The ideal FCT knows the flow may use all K paths, so the slowdown stays near 1 (one path's
  // ideal would make it about 1/4).
  for (const RunSummary* r : {&one, &four}) {
    const double slowdown = r->metrics.flows.records().at(0).slowdown();
    EXPECT_GE(slowdown, 1.0);
    EXPECT_LT(slowdown, 1.05);
  }
  // Probing first costs about one probe per path and is then part of the flow's time.
  const RunSummary probed = run(testbed(4, "paths = 4\n"));
  ASSERT_EQ(probed.finished, 1u);
  EXPECT_GT(probed.simulated, four.simulated);
}

// Under ECMP the flows' Virtuoso connections choose source ports with the switches' known hash
// (sim::ecmp_path_oracle), so four paths still land on four path links: the flow takes a quarter
// of one path's time, as with source routing (random ports would share links most of the time:
// four ports on four links are all distinct with probability 4!/4^4, under 10%).
TEST(VirtuosoScenario, EcmpPathsLandOnDistinctLinks) {
  std::string text = testbed(4, "paths = 4\nprobe = false\n");
  const std::string source = "mode = \"source\"";
  text.replace(text.find(source), source.size(), "mode = \"ecmp\"");
  const RunSummary ecmp = run(text);
  const RunSummary one = run(testbed(1, "paths = 1\nprobe = false\n"));
  ASSERT_EQ(ecmp.finished, 1u);
  EXPECT_NEAR(ecmp.simulated.seconds() / one.simulated.seconds(), 0.25, 0.025);
  EXPECT_LT(ecmp.metrics.flows.records().at(0).slowdown(), 1.05);
}

}  // namespace
}  // namespace bifrost::sim
