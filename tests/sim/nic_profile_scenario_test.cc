// [nic.profile.<name>]: hosts with a ConnectX-4-like or ConnectX-5-like NIC (rnic/nic_profile.h)
// are parsed strictly, and the profile reaches the hosts' NICs: CX-5's adaptive retransmission
// repairs a lost tail long before go-back-N's QP timeout would.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "scenario_text.h"
#include "support/error_message.h"

namespace bifrost::sim {
namespace {

using bifrost::testing::error_of;
using testing::parse;
using testing::run;

// Every ordered pair of 4 hosts on a star sends one 1 KB message; host links lose 20% of the
// frames, so some messages need a timeout. `nic_extra` follows [nic].
std::string lossy_star(const std::string& nic_extra, const std::string& pfc = "") {
  return testing::lossy_star_all_to_all(3, "0.2", "dcqcn = true\n" + nic_extra, "1KB") + pfc;
}

TEST(NicProfileScenario, ProfilesAndOverridesAreParsed) {
  const auto sc = parse(lossy_star(R"(
[nic.profile.cx4]
hosts = "0..1"
dcqcn_increase_period = "100us"
dcqcn_reaction_groups = 0
[nic.profile.cx5]
hosts = [2, 3]
dcqcn_increase_bytes = "64KB"
tx_window = true
tx_window_packets = 32
slow_restart = true
adaptive_retransmission = true
adaptive_rto = "8us"
)"));
  ASSERT_EQ(sc.nic.profiles.size(), 2u);
  const scenario::NicProfileSpec& cx4 = sc.nic.profiles[0];
  const scenario::NicProfileSpec& cx5 = sc.nic.profiles[1];
  EXPECT_EQ(cx4.name, "cx4");
  EXPECT_EQ(cx4.hosts, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(cx4.dcqcn_increase_period, Time::us(100));
  EXPECT_FALSE(cx4.dcqcn_increase_bytes.has_value());
  EXPECT_EQ(cx4.dcqcn_reaction_groups, 0u) << "0 overrides the profile's 5: per-QP DCQCN";
  EXPECT_FALSE(sc.nic.profiles[1].dcqcn_reaction_groups.has_value());
  EXPECT_EQ(cx5.name, "cx5");
  EXPECT_EQ(cx5.hosts, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(cx5.dcqcn_increase_bytes, Bytes(64'000));
  EXPECT_TRUE(cx5.tx_window && cx5.slow_restart && cx5.adaptive_retransmission);
  EXPECT_EQ(cx5.tx_window_packets, 32u);
  EXPECT_EQ(cx5.adaptive_rto, Time::us(8));
  EXPECT_NE(cx5.where.find("nic.profile.cx5"), std::string::npos);
}

TEST(NicProfileScenario, MistakesAreErrorsNamingTheKey) {
  const auto error = [](const std::string& nic_extra, bool dcqcn = true) {
    std::string text = lossy_star(nic_extra);
    if (!dcqcn) text.replace(text.find("dcqcn = true"), 12, "dcqcn = false");
    return error_of([&] { parse(text); });
  };
  EXPECT_NE(error("[nic.profile.cx6]\nhosts = \"all\"\n")
                .find("not a NIC profile; valid profiles: "
                      "cx3pro, cx4, cx5"),
            std::string::npos);
  EXPECT_NE(error("[nic.profile.cx4]\nhosts = \"all\"\ntx_window = true\n")
                .find("the cx4 profile has no lossy-RoCE features"),
            std::string::npos);
  EXPECT_NE(error("[nic.profile.cx4]\nhosts = \"0..2\"\n[nic.profile.cx5]\nhosts = [2]\n")
                .find("host 2 already has profile cx4"),
            std::string::npos);
  EXPECT_NE(error("[nic.profile.cx5]\nhosts = \"all\"\nslow_restart = true\n", false)
                .find("nic.profile.cx5.slow_restart"),
            std::string::npos);
  EXPECT_NE(error("[nic.profile.cx5]\nhosts = \"all\"\ntx_window_packets = 8\n")
                .find("set tx_window = true"),
            std::string::npos);
  EXPECT_NE(error("[nic.profile.cx5]\nhosts = \"all\"\nadaptive_rto = \"5us\"\n")
                .find("set adaptive_retransmission = true"),
            std::string::npos);
  EXPECT_NE(error("[nic.profile.cx5]\ntx_window = true\n").find("hosts"), std::string::npos);
  EXPECT_EQ(error("[nic.profile.cx4]\nhosts = \"all\"\n", false), "no error")
      << "a profile without DCQCN is fine ...";
  EXPECT_NE(error("[nic.profile.cx4]\nhosts = \"all\"\ndcqcn_increase_period = \"1us\"\n", false)
                .find("DCQCN is off"),
            std::string::npos)
      << "... but its DCQCN constants then mean nothing";
  std::string line_rate = lossy_star("[nic.profile.cx5]\nhosts = \"all\"\n");
  line_rate.replace(line_rate.find("model = \"rnic\""), 14, "model = \"line_rate\"");
  EXPECT_NE(error_of([&] { parse(line_rate); }).find("set nic.model = \"rnic\""),
            std::string::npos);
}

// Go-back-N's timeout is the QP's (exponent 14: 67 ms) on every host; CX-5's adaptive
// retransmission starts at 16 us, so the same losses are repaired far sooner.
TEST(NicProfileScenario, AdaptiveRetransmissionReachesTheNics) {
  const std::string slow_qp_timeout = "timeout = 14\n";
  const RunSummary plain =
      run(lossy_star(slow_qp_timeout + "[nic.profile.cx5]\nhosts = \"all\"\n"));
  const RunSummary adaptive = run(lossy_star(
      slow_qp_timeout + "[nic.profile.cx5]\nhosts = \"all\"\nadaptive_retransmission = true\n"));
  ASSERT_GT(plain.timeouts, 0u) << "the losses must need a timeout, or this test shows nothing";
  EXPECT_EQ(plain.finished, plain.flows);
  EXPECT_EQ(adaptive.finished, adaptive.flows);
  EXPECT_GE(plain.simulated, Time::ms(67));
  EXPECT_LT(adaptive.simulated, Time::ms(10));
}

TEST(NicProfileScenario, ACx4WithoutPfcIsFlaggedInTheRunHeader) {
  const auto header = [](const std::string& text) {
    char* buffer = nullptr;
    size_t size = 0;
    std::FILE* out = open_memstream(&buffer, &size);
    RunOptions options;
    options.progress = out;
    run_scenario(parse(text), options);
    std::fclose(out);
    std::string s(buffer, size);
    std::free(buffer);
    return s;
  };
  const std::string profile = "[nic.profile.cx4]\nhosts = \"all\"\n";
  EXPECT_NE(header(lossy_star(profile)).find("cx4 needs a lossless fabric"), std::string::npos);
  EXPECT_EQ(header(lossy_star(profile, "[switch.pfc]\nenabled = true\n"))
                .find("cx4 needs a lossless fabric"),
            std::string::npos);
}

// Hosts 1-2 (CX-4) and 3-4 (CX-5) keep 8 RPCs of 512 KiB each outstanding into host 0, lossless,
// with the NICs' DCQCN as the only congestion control. CX-5's byte counter is raised so far that
// only its timer increases its rate, while CX-4's 32 KB counter fires every few microseconds:
// the CX-4 hosts take most of the bottleneck (experiments/bifrost-hybrid-cluster measures this).
TEST(NicProfileScenario, AProfilesDcqcnConstantsReachItsHosts) {
  const std::string loop = R"(
[[workload]]
kind = "closed_loop"
clients = "@CLIENTS@"
server = 0
depth = 8
size = "512KiB"
duration = "20ms"
warmup = "5ms"
)";
  std::string text = R"(
[simulation]
mtu = 4096
duration = "20ms"
stop = "duration"
[topology]
kind = "star"
hosts = 5
host_rate = "100Gbps"
host_delay = "1us"
[switch.ecn]
kmin = "100KB"
kmax = "400KB"
pmax = 0.2
[switch.pfc]
[nic]
model = "rnic"
dcqcn = true
dcqcn_cnp_interval = "50us"
[nic.profile.cx4]
hosts = "1..2"
[nic.profile.cx5]
hosts = "3..4"
dcqcn_increase_bytes = "10MB"
[transport]
kind = "bifrost-rc"
cc = "none"
chunking = false
)";
  for (const char* clients : {"1..2", "3..4"}) {
    std::string l = loop;
    l.replace(l.find("@CLIENTS@"), 9, clients);
    text += l;
  }
  const RunSummary summary = run(text);
  ASSERT_EQ(summary.closed_loops.size(), 2u);
  const double cx4 = summary.closed_loops[0].result.goodput_gbps;
  const double cx5 = summary.closed_loops[1].result.goodput_gbps;
  EXPECT_GT(cx4 + cx5, 80) << "the bottleneck stays busy";
  EXPECT_GT(cx4, 1.5 * cx5) << "cx4 " << cx4 << " Gb/s, cx5 " << cx5 << " Gb/s";
  EXPECT_EQ(summary.drops, 0u) << "lossless";
}

}  // namespace
}  // namespace bifrost::sim
