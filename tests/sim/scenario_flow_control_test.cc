// Flow control per link class from a scenario file, end to end: a 2:1 incast across a short
// two-datacenter network with Bifrost DCI (and fibre jitter) on the long-haul links finishes
// with no drop while the DCI ports pause; the same traffic without flow control on those links
// drops; errors that only the built network finds name the scenario table.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "bifrost/core/error.h"
#include "bifrost/sim/scenario/scenario.h"
#include "bifrost/sim/simulation.h"
#include "scenario_text.h"

namespace bifrost::sim {
namespace {

using testing::parse;
using testing::run;
using testing::two_dc_incast;

constexpr const char* kDci = R"(
[switch.flow_control.dci]
kind = "dci"
slot = "2us"
)";

TEST(ScenarioFlowControl, DciOnTheLongLinksIsLosslessAndPauses) {
  const RunSummary s = run(two_dc_incast(kDci));
  EXPECT_EQ(s.finished, 2u);
  EXPECT_EQ(s.drops, 0u);
  // The border switch of DC 1 paused the one of DC 0 over the long link.
  const auto& ports = s.metrics.pauses.by_port();
  const auto it = ports.find("dc0.border->dc1.border/prio0");
  ASSERT_NE(it, ports.end()) << ports.size() << " paused ports, none over the long links";
  EXPECT_GT(it->second.count, 0u);
}

TEST(ScenarioFlowControl, NoFlowControlOnTheLongLinksDrops) {
  const RunSummary s = run(two_dc_incast(R"(
[switch.flow_control.dci]
kind = "none"
)"));
  EXPECT_GT(s.drops, 0u);
  EXPECT_LT(s.finished, 2u);  // a line-rate flow that lost a packet never completes
}

TEST(ScenarioFlowControl, CbfcOnTheLongLinksIsLossless) {
  // The ideal variant with a buffer of more than a credit round trip (2 x 20 us + 1 us).
  const RunSummary s = run(two_dc_incast(R"(
[switch.flow_control.dci]
kind = "cbfc"
buffer = "600KB"
field_bits = 0
)"));
  EXPECT_EQ(s.finished, 2u);
  EXPECT_EQ(s.drops, 0u);
}

TEST(ScenarioFlowControl, DciBufferBelowTheBoundNamesTheTable) {
  try {
    run(two_dc_incast(R"(
[switch.flow_control.dci]
kind = "dci"
slot = "2us"
buffer = "300KB"
)"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_TRUE(
        message.starts_with("test.toml:24:1: switch.flow_control.dci: DCI buffer H = "
                            "300000 bytes is below"))
        << message;
    EXPECT_NE(message.find("Theorem 1 does not hold"), std::string::npos) << message;
  }
}

// Algorithm 1 as printed, from the scenario: parsed without the guard, and it runs. (Whether
// it holds is the oracle's question: tests/net/dci_oracle_property_test.cc.)
TEST(ScenarioFlowControl, DciLiteralRunsThePrintedAlgorithm) {
  const std::string table = std::string(kDci) + "literal = true\n";
  const auto s = parse(two_dc_incast(table));
  ASSERT_EQ(s.switches.flow_control.size(), 1u);
  const auto& d = std::get<scenario::DciFlowControl>(s.switches.flow_control[0].kind);
  EXPECT_TRUE(d.literal);
  EXPECT_FALSE(d.guard);
  const RunSummary r = run(two_dc_incast(table));
  EXPECT_GT(r.pauses, 0u);
}

TEST(ScenarioFlowControl, ParsesEveryKindAndTheJitter) {
  const auto s = parse(two_dc_incast(R"(
[switch.flow_control.dci]
kind = "dci"
slot = "4us"
leak_every = 3
buffer = "1MB"
guard = false
[switch.flow_control.host]
kind = "cbfc"
buffer = "100KB"
update_period = "2us"
[switch.flow_control.fabric]
kind = "pfc"
threshold = "static"
xoff = "50KB"
xon = "40KB"
)"));
  const auto& t = std::get<scenario::TwoDcTopology>(s.topology);
  EXPECT_EQ(t.dci.jitter, Time::ns(5));
  EXPECT_EQ(t.dc.host.jitter, Time::zero());  // never inherited
  ASSERT_EQ(s.switches.flow_control.size(), 3u);
  for (const auto& fc : s.switches.flow_control) {
    if (fc.link_class == "dci") {
      const auto& d = std::get<scenario::DciFlowControl>(fc.kind);
      EXPECT_EQ(d.slot, Time::us(4));
      EXPECT_EQ(d.leak_every, 3u);
      EXPECT_EQ(d.buffer, Bytes(1'000'000));
      EXPECT_FALSE(d.guard);
      EXPECT_FALSE(d.literal);
    } else if (fc.link_class == "host") {
      const auto& c = std::get<scenario::CbfcFlowControl>(fc.kind);
      EXPECT_EQ(c.buffer, Bytes(100'000));
      EXPECT_EQ(c.update_period, Time::us(2));
      EXPECT_EQ(c.field_bits, 12u);
    } else {
      EXPECT_EQ(fc.link_class, "fabric");
      const auto& p = std::get<scenario::PfcConfig>(fc.kind);
      EXPECT_TRUE(p.enabled);
      EXPECT_EQ(p.xoff, Bytes(50'000));
      EXPECT_EQ(p.xon, Bytes(40'000));
    }
  }
}

}  // namespace
}  // namespace bifrost::sim
