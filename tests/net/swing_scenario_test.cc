// SWING from a scenario file, end to end: a 2:1 incast across two datacenters with SWING relays
// on both long links finishes (a line-rate flow that lost a packet never would) while the
// border switch pauses its relay and the relay's pause reaches the far relay; the strict errors
// of [switch.flow_control.<class>] kind = "swing", and the relay buffer check that only the
// built network can make, naming the table.
#include <gtest/gtest.h>

#include <string>

#include "bifrost/core/error.h"
#include "sim/scenario_text.h"

namespace bifrost::sim {
namespace {

using testing::parse;
using testing::run;
using testing::run_error;
using testing::two_dc_incast;

// The 2:1 incast with SWING on the long links; `trigger` is empty or a trigger = line.
std::string swing_incast(const std::string& trigger) {
  return two_dc_incast("\n[switch.flow_control.dci]\nkind = \"swing\"\n" + trigger +
                       "xoff = \"50KB\"\nxon = \"40KB\"\nrelay_length = \"200m\"\n");
}

// Pauses that reached DC 0's relays from DC 1's over the long link.
uint64_t long_link_pauses(const RunSummary& s) {
  uint64_t n = 0;
  for (const auto& [name, pauses] : s.metrics.pauses.by_port()) {
    if (name.starts_with("dc0.border/swing") && name.find("->dc1.border/swing") != name.npos) {
      n += pauses.count;
    }
  }
  return n;
}

TEST(SwingScenario, RelaysOnTheLongLinksAreLosslessAndRelayPauses) {
  const RunSummary s = run(swing_incast(""));
  EXPECT_EQ(s.finished, 2u);
  EXPECT_EQ(s.drops, 0u);  // switches, links and the relays' own buffers
  uint64_t switch_to_relay = 0;
  for (const auto& [name, pauses] : s.metrics.pauses.by_port()) {
    if (name.starts_with("dc1.border/swing") && name.find("->dc1.border/prio0") != name.npos) {
      switch_to_relay += pauses.count;
    }
  }
  EXPECT_GT(switch_to_relay, 0u) << "the border switch of DC 1 never paused its relay";
  EXPECT_GT(long_link_pauses(s), 0u) << "no pause was relayed over a long link";
}

TEST(SwingScenario, ParsesItsKeys) {
  const auto s = parse(two_dc_incast(R"(
[switch.flow_control.dci]
kind = "swing"
buffer = "1MB"
xoff = "50KB"
xon = "40KB"
relay_delay = "2us"
)"));
  ASSERT_EQ(s.switches.flow_control.size(), 1u);
  const auto& w = std::get<scenario::SwingFlowControl>(s.switches.flow_control[0].kind);
  EXPECT_EQ(w.buffer, Bytes(1'000'000));
  EXPECT_EQ(w.xoff, Bytes(50'000));
  EXPECT_EQ(w.xon, Bytes(40'000));
  EXPECT_EQ(w.relay_delay, Time::us(2));
  const auto d = parse(two_dc_incast("[switch.flow_control.dci]\nkind = \"swing\"\n"));
  const auto& defaults = std::get<scenario::SwingFlowControl>(d.switches.flow_control[0].kind);
  EXPECT_FALSE(defaults.buffer.has_value());
  EXPECT_EQ(defaults.xoff, Bytes(198'000));
  EXPECT_EQ(defaults.relay_delay, Time::us(1));
}

TEST(SwingScenario, StrictErrors) {
  EXPECT_EQ(run_error(two_dc_incast("[switch.flow_control.host]\nkind = \"swing\"\n")),
            "test.toml:24:8: switch.flow_control.host.kind: \"swing\" puts a relay between two "
            "switches; host links have a host end (use it on a switch-to-switch class such as "
            "dci)");
  EXPECT_EQ(
      run_error(two_dc_incast("[switch.flow_control.dci]\nkind = \"swing\"\nxon = \"300KB\"\n")),
      "test.toml:25:7: switch.flow_control.dci.xon: xon (300000 bytes) is above xoff "
      "(198000 bytes); the relay would never resume");
  EXPECT_EQ(run_error(two_dc_incast("[switch.flow_control.dci]\nkind = \"swing\"\nrelay_delay = "
                                    "\"1us\"\nrelay_length = \"1km\"\n")),
            "test.toml:26:16: switch.flow_control.dci.relay_length: give either relay_delay or "
            "relay_length, not both");
  const std::string unknown =
      run_error(two_dc_incast("[switch.flow_control.dci]\nkind = \"swing\"\nslot = \"2us\"\n"));
  EXPECT_NE(unknown.find("unknown key \"slot\" for kind \"swing\""), std::string::npos) << unknown;
}

TEST(SwingScenario, RelayBufferBelowTheRuleNamesTheTable) {
  const std::string message =
      run_error(two_dc_incast("[switch.flow_control.dci]\nkind = \"swing\"\nbuffer = \"300KB\"\n"));
  // S = 1130 (WRITE ONLY with immediate at MTU 1024, with the 24-byte SR extension), latency
  // 0, jitter 5 ns: 2 x 1130 + bytes_in(40.01 us + T(1150) + T(84)) = 2,260 + 501,359.
  EXPECT_TRUE(
      message.starts_with("test.toml:23:1: switch.flow_control.dci: SWING relay "
                          "'dc0.border/swing0': buffer of 300000 bytes per priority is "
                          "below the 503619 bytes"))
      << message;
}

// The paper's trigger (section VI-B's relay "with a 287 MB buffer and 198 KB XON/XOFF"): the
// relay pauses the far relay on its own long-link queue. The same 2:1 incast stays lossless,
// the far relay is paused, and the parser takes the key and refuses an unknown value.
TEST(SwingScenario, OwnThresholdTriggerIsLosslessAndPausesOverTheLongLink) {
  const std::string text = swing_incast("trigger = \"threshold\"\n");
  const auto parsed = parse(text);
  const auto& w = std::get<scenario::SwingFlowControl>(parsed.switches.flow_control[0].kind);
  EXPECT_EQ(w.trigger, scenario::SwingFlowControl::Trigger::kThreshold);
  const RunSummary s = run(text);
  EXPECT_EQ(s.finished, 2u);
  EXPECT_EQ(s.drops, 0u);
  EXPECT_GT(long_link_pauses(s), 0u) << "relay b never paused relay a on its own threshold";
  const std::string bad = run_error(
      two_dc_incast("[switch.flow_control.dci]\nkind = \"swing\"\ntrigger = \"switch\"\n"));
  EXPECT_NE(bad.find("switch.flow_control.dci.trigger"), std::string::npos) << bad;
  const auto d = parse(two_dc_incast("[switch.flow_control.dci]\nkind = \"swing\"\n"));
  EXPECT_EQ(std::get<scenario::SwingFlowControl>(d.switches.flow_control[0].kind).trigger,
            scenario::SwingFlowControl::Trigger::kRelay);
}

}  // namespace
}  // namespace bifrost::sim
