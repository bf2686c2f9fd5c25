// [nic] ack_delay and the RC timeout default: the responder's ACK-delay bound reaches the NICs
// from a scenario, and it is what keeps a DCQCN-collapsed incast from timing out with nothing
// lost (docs/rnic.md, "ACK timing").
#include <gtest/gtest.h>

#include <string>

#include "bifrost/rnic/nic_context.h"
#include "scenario_text.h"
#include "support/error_message.h"

namespace bifrost::sim {
namespace {

using testing::parse;
using testing::run;

// A 16:1 incast of 256 KB flows on a star with PFC, ECN marking from 20 KB and DCQCN at the
// NICs: DCQCN cuts the senders far below line rate for milliseconds, with no drop anywhere.
std::string dcqcn_incast(const std::string& nic_extra) {
  return R"(
[simulation]
seed = 3
mtu = 1024
duration = "20ms"
[topology]
kind = "star"
hosts = 17
host_rate = "100Gbps"
host_delay = "1us"
[switch]
buffer = "4MB"
[switch.ecn]
kmin = "20KB"
kmax = "200KB"
pmax = 0.2
[switch.pfc]
threshold = "dynamic"
resume_offset = "4KB"
[[workload]]
kind = "incast"
receiver = 0
senders = "1..16"
size = "256KB"
[nic]
model = "rnic"
dcqcn = true
)" + nic_extra;
}

TEST(NicAckTiming, DefaultsAreTheRnicsAndPerftests) {
  const scenario::NicConfig nic;
  EXPECT_EQ(nic.ack_delay, rnic::DataPathConfig{}.ack_delay);
  EXPECT_EQ(nic.ack_delay, Time::us(8));
  EXPECT_EQ(nic.timeout, 14) << "perftest's default, 67 ms";
}

TEST(NicAckTiming, KeysAreParsed) {
  EXPECT_EQ(parse(dcqcn_incast("ack_delay = \"20us\"\n")).nic.ack_delay, Time::us(20));
  EXPECT_EQ(parse(dcqcn_incast("ack_delay = \"0us\"\n")).nic.ack_delay, Time::zero());
  const auto profiled =
      parse(dcqcn_incast("[nic.profile.cx5]\nhosts = \"0..3\"\nack_delay = \"3us\"\n"));
  ASSERT_EQ(profiled.nic.profiles.size(), 1u);
  EXPECT_EQ(profiled.nic.profiles[0].ack_delay, std::optional<Time>(Time::us(3)));
  using bifrost::testing::error_of;
  EXPECT_NE(error_of([] { parse(dcqcn_incast("ack_delay = 8\n")); }).find("nic.ack_delay"),
            std::string::npos);
}

// [nic] rc_ack_dscp: unset by default (ACKs in their QP's class), 0..63.
TEST(NicAckTiming, RcAckDscpIsParsed) {
  EXPECT_FALSE(scenario::NicConfig{}.rc_ack_dscp.has_value());
  EXPECT_FALSE(rnic::DataPathConfig{}.ack_traffic_class.has_value());
  EXPECT_EQ(parse(dcqcn_incast("rc_ack_dscp = 48\n")).nic.rc_ack_dscp, std::optional<uint8_t>(48));
  EXPECT_FALSE(parse(dcqcn_incast("")).nic.rc_ack_dscp.has_value());
  using bifrost::testing::error_of;
  EXPECT_NE(error_of([] { parse(dcqcn_incast("rc_ack_dscp = 64\n")); }).find("nic.rc_ack_dscp"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse(dcqcn_incast("rc_ack_dscp = \"48\"\n")); }).find("nic.rc_ack_dscp"),
            std::string::npos);
}

// The old defaults (no bound, timeout exponent 8 = 1.05 ms) time out with zero drops, and
// flows fail after their retries; with the bound nothing is resent, at either timeout.
TEST(NicAckTiming, TheBoundPreventsTimeoutsWithoutLoss) {
  const RunSummary old = run(dcqcn_incast("ack_delay = \"0us\"\ntimeout = 8\n"));
  EXPECT_EQ(old.drops, 0u);
  EXPECT_GT(old.timeouts, 0u) << "the case must show the failure, or the test proves nothing";
  for (const char* timeout : {"timeout = 8\n", ""}) {
    SCOPED_TRACE(timeout);
    const RunSummary bounded = run(dcqcn_incast(timeout));
    EXPECT_EQ(bounded.drops, 0u);
    EXPECT_EQ(bounded.timeouts, 0u);
    EXPECT_EQ(bounded.retransmitted, 0u);
    EXPECT_EQ(bounded.finished, bounded.flows);
    ASSERT_TRUE(bounded.metrics.nic.has_value());
    EXPECT_GT(bounded.metrics.nic->delayed_acks, 0u);
  }
}

}  // namespace
}  // namespace bifrost::sim
