// [switch.border] end to end: a two_dc network's border (DCI) switches get a static buffer
// partition with no shared pool (the Bifrost DCI paper, section VI-B), every other switch keeps
// [switch]'s shared buffer and alpha; the dci links' own buffers may then exceed [switch]
// buffer (the partition is their sum); bad tables are refused with the reason.
#include <gtest/gtest.h>

#include <string>

#include "bifrost/sim/event_kernel.h"
#include "bifrost/sim/network.h"
#include "bifrost/sim/topology/graph.h"
#include "scenario_text.h"
#include "support/error_message.h"

namespace bifrost::sim {
namespace {

using testing::parse;
using testing::two_dc_incast;

constexpr const char* kStaticBorder = R"(
[switch.border]
partition = "static"
queue_buffer = "64KB"
)";

// Long-haul PFC whose XOFF + headroom (1 + 3 MB) is more than [switch] buffer (2 MB).
constexpr const char* kBigLongHaulPfc = R"(
[switch.flow_control.dci]
kind = "pfc"
threshold = "static"
xoff = "1MB"
xon = "1MB"
headroom = "3MB"
)";

struct Built {
  EventKernel kernel;
  std::unique_ptr<Network> network;
};

std::unique_ptr<Built> build(const std::string& text) {
  const auto sc = parse(text);
  auto b = std::make_unique<Built>();
  NetworkConfig nc;
  nc.switches = sc.switches;
  nc.mtu = sc.simulation.mtu;
  nc.lossless_priorities = 1;
  b->network = std::make_unique<Network>(b->kernel, topology::describe(sc.topology), nc);
  return b;
}

// Checks that `message` contains `part`, and shows the message when it does not.
void expect_contains(const std::string& message, const std::string& part) {
  EXPECT_NE(message.find(part), std::string::npos) << message;
}

bool is_border(const net::Switch& sw) {
  return sw.name().ends_with("border");
}

TEST(ScenarioBorderBuffer, BorderSwitchesAreStaticAndTheOthersUnchanged) {
  const auto with = build(two_dc_incast(std::string(kStaticBorder) + kBigLongHaulPfc));
  const auto without = build(two_dc_incast(""));
  const auto& sw = with->network->switches();
  const auto& before = without->network->switches();
  ASSERT_EQ(sw.size(), before.size());
  int borders = 0;
  for (std::size_t i = 0; i < sw.size(); ++i) {
    SCOPED_TRACE(sw[i]->name());
    const net::SharedBuffer& b = sw[i]->buffer();
    if (is_border(*sw[i])) {
      ++borders;
      EXPECT_TRUE(b.is_static());
      EXPECT_EQ(b.shared_size(), Bytes(0)) << "no pool to borrow from";
      EXPECT_GT(b.total(), Bytes(2 * 4'000'000)) << "two long-haul ports of 1 + 3 MB";
    } else {
      EXPECT_FALSE(b.is_static());
      EXPECT_EQ(b.total(), before[i]->buffer().total());
      EXPECT_EQ(b.alpha(), before[i]->buffer().alpha());
      EXPECT_EQ(b.shared_size(), before[i]->buffer().shared_size());
    }
  }
  EXPECT_EQ(borders, 2);
}

TEST(ScenarioBorderBuffer, LongHaulBuffersAboveTheSwitchBufferNeedTheStaticBorder) {
  expect_contains(bifrost::testing::error_of([] { parse(two_dc_incast(kBigLongHaulPfc)); }),
                  "headroom: 3000000 bytes is not below the switch buffer");
  EXPECT_EQ(bifrost::testing::error_of(
                [] { parse(two_dc_incast(std::string(kStaticBorder) + kBigLongHaulPfc)); }),
            "no error");
}

TEST(ScenarioBorderBuffer, AnIncastThroughStaticBordersStaysLossless) {
  const RunSummary s = testing::run(two_dc_incast(std::string(kStaticBorder) + R"(
[switch.flow_control.dci]
kind = "dci"
slot = "2us"
)"));
  EXPECT_EQ(s.finished, 2u);
  EXPECT_EQ(s.drops, 0u);
  EXPECT_GT(s.pauses, 0u);
}

TEST(ScenarioBorderBuffer, BadTablesAreRefusedWithTheReason) {
  const auto error = [](const std::string& text) {
    return bifrost::testing::error_of([&] { parse(text); });
  };
  expect_contains(error(testing::star_scenario(false, kStaticBorder)),
                  "only a two_dc topology has border switches, not star");
  std::string dynamic = two_dc_incast(kStaticBorder);
  const std::string pfc = "threshold = \"static\"\nxoff = \"100KB\"\nxon = \"80KB\"\n";
  dynamic.replace(dynamic.find(pfc), pfc.size(), "threshold = \"dynamic\"\n");
  expect_contains(error(dynamic),
                  "partition \"static\" has no shared pool, but PFC on the fabric links");
  expect_contains(error(two_dc_incast("[switch.border]\npartition = \"static\"\nqueue_buffer = "
                                      "\"512B\"\n")),
                  "512 bytes cannot hold one 1024-byte packet");
  expect_contains(error(two_dc_incast("[switch.border]\npartition = \"static\"\n")),
                  "queue_buffer");
  expect_contains(error(two_dc_incast("[switch.border]\npartition = \"pooled\"\n")), "pooled");
  expect_contains(error(two_dc_incast("[switch.border]\npartition = \"shared\"\nqueue_buffer = "
                                      "\"1MB\"\n")),
                  "is used only with partition = \"static\"");
}

}  // namespace
}  // namespace bifrost::sim
