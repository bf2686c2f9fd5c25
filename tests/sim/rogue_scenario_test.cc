// RoGUE's scenario keys beyond [transport]: workloads of RDMA READs (`op = "read"`), the NIC's
// rate-limiter keys ([nic] rate_change_delay, per_priority_limiters) and the cx3pro profile,
// parsed strictly and reaching the run.
#include <gtest/gtest.h>

#include <string>

#include "bifrost/sim/metrics/cc_trace.h"
#include "scenario_text.h"
#include "support/error_message.h"

namespace bifrost::sim {
namespace {

using bifrost::testing::error_of;
using testing::parse;
using testing::run;

// Three hosts at 10 Gb/s around one switch; host 0 moves 2 MB with each of hosts 1 and 2.
std::string rogue_star(const std::string& kind, const std::string& op,
                       const std::string& nic = "model = \"rnic\"\n") {
  testing::TwoToOne s;
  s.duration = "50ms";
  s.buffer = "4MB";
  s.nic = nic;
  s.transport = "[transport]\nkind = \"" + kind + "\"\n";
  s.workload = op;
  return testing::two_to_one(s);
}

TEST(RogueScenario, ReadWorkloadsRunAsReadsOverRogueRc) {
  const auto sc = parse(rogue_star("rogue-rc", "op = \"read\"\n"));
  ASSERT_EQ(sc.workloads.size(), 1u);
  EXPECT_EQ(sc.workloads[0].op, workload::FlowOp::read);
  const RunSummary s = run(rogue_star("rogue-rc", "op = \"read\"\n"));
  EXPECT_EQ(s.flows, 2u);
  EXPECT_EQ(s.finished, 2u);
  EXPECT_EQ(s.transport_unidentified, 0u);
  // The default stays a WRITE.
  EXPECT_EQ(parse(rogue_star("rogue-rc", "")).workloads[0].op, workload::FlowOp::write);
}

TEST(RogueScenario, ReadsNeedRogueOverRc) {
  for (const std::string kind : {"rc", "bifrost-uc", "rogue-uc"}) {
    const std::string error = error_of([&] { parse(rogue_star(kind, "op = \"read\"\n")); });
    EXPECT_NE(error.find("workload[0].op"), std::string::npos) << kind << ": " << error;
    EXPECT_NE(error.find("set kind = \"rogue-rc\""), std::string::npos) << error;
  }
  EXPECT_NE(error_of([&] {
              parse(rogue_star("rogue-rc", "op = \"atomic\"\n"));
            }).find("valid choices: write, read"),
            std::string::npos);
}

TEST(RogueScenario, RateLimiterKeysAndTheCx3ProProfileAreParsed) {
  const auto sc = parse(rogue_star("rogue-rc", "",
                                   "model = \"rnic\"\nrate_change_delay = \"160KB\"\n"
                                   "per_priority_limiters = 8\n"
                                   "[nic.profile.cx3pro]\nhosts = [0]\n"
                                   "rate_change_delay = \"64KB\"\nper_priority_limiters = 2\n"));
  EXPECT_EQ(sc.nic.rate_change_delay, Bytes(160'000));
  EXPECT_EQ(sc.nic.per_priority_limiters, 8u);
  ASSERT_EQ(sc.nic.profiles.size(), 1u);
  EXPECT_EQ(sc.nic.profiles[0].name, "cx3pro");
  EXPECT_EQ(sc.nic.profiles[0].rate_change_delay, Bytes(64'000));
  EXPECT_EQ(sc.nic.profiles[0].per_priority_limiters, 2u);
  EXPECT_NE(error_of([&] {
              parse(rogue_star("rogue-rc", "", "model = \"rnic\"\nper_priority_limiters = 65\n"));
            }).find("nic.per_priority_limiters"),
            std::string::npos);
}

// Per-priority limiters reach the NICs: RoGUE gives each connection a limiter of its own and
// refuses to share one, so host 0 with a bank of one cannot open its second connection.
TEST(RogueScenario, APerPriorityBankTooSmallForTheConnectionsIsRefused) {
  const std::string one = "model = \"rnic\"\nper_priority_limiters = 1\n";
  const std::string error = error_of([&] { run(rogue_star("rogue-rc", "", one)); });
  EXPECT_NE(error.find("limiter"), std::string::npos) << error;
  const std::string two = "model = \"rnic\"\nper_priority_limiters = 2\n";
  EXPECT_EQ(run(rogue_star("rogue-rc", "", two)).finished, 2u);
}

// [metrics] cc_trace: every RTT sample and rate change of every RoGUE connection, with the
// sending rate the window implies (cwnd / RTT).
TEST(RogueScenario, TheCcTraceRecordsEverySampleAndRateChange) {
  const RunSummary s = run(rogue_star("rogue-rc", "[metrics]\ncc_trace = true\n"));
  ASSERT_FALSE(s.metrics.cc_trace.empty());
  uint64_t samples = 0;
  for (const metrics::CcTraceRow& r : s.metrics.cc_trace) {
    // Only the senders' WRITE windows see samples; the receiver's never send.
    EXPECT_TRUE(r.host == "h1" || r.host == "h2") << r.host;
    EXPECT_EQ(r.peer, "h0");
    EXPECT_FALSE(r.read);
    samples += r.sample ? 1 : 0;
  }
  // One sample per batch at most, and a batch is a 64 KiB segment here.
  EXPECT_GT(samples, 0u);
  EXPECT_LE(samples, s.transport.chunks);
  const std::string csv = metrics::cc_trace_csv(s.metrics.cc_trace);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "time_us,host,peer,lane,priority,window,event,cwnd_bytes,rtt_us,base_rtt_us,held_off,"
            "estimate_gbps,rate_gbps");
  EXPECT_NE(error_of([&] {
              parse(rogue_star("bifrost-uc", "[metrics]\ncc_trace = true\n"));
            }).find("metrics.cc_trace"),
            std::string::npos);
}

// [topology] host_drop_every: RoGUE's loss experiment drops every N-th packet a NIC sends, as a
// switch ACL on the IP id did; RoGUE RC recovers every flow (NIC retries, shadow QPs).
TEST(RogueScenario, EveryNthFrameAHostSendsIsDropped) {
  std::string text = rogue_star("rogue-rc", "");
  text.insert(text.find("[switch]"), "host_drop_every = 500\n");
  const auto sc = parse(text);
  EXPECT_EQ(scenario::link_class_spec(sc.topology, "host").drop_every, 500u);
  const RunSummary s = run(text);
  EXPECT_EQ(s.finished, 2u);
  // 2 x 2 MB in 2 KB frames plus ACKs: each host link drops its own 500th, 1000th, ... frame.
  EXPECT_GE(s.drops, 2 * 1000u / 500);
  EXPECT_LE(s.drops, (s.data_packets / 2) / 500 + 3);
  EXPECT_NE(error_of([&] {
              std::string bad = rogue_star("rogue-rc", "");
              bad.insert(bad.find("[switch]"), "host_drop_every = 1\n");
              parse(bad);
            }).find("topology.host_drop_every"),
            std::string::npos);
}

// [transport] verb: a flow posted as many application verbs instead of one.
TEST(RogueScenario, FlowsArePostedAsVerbsOfTheGivenSize) {
  std::string text = rogue_star("rogue-rc", "");
  text.insert(text.find("[[workload]]"), "verb = \"64KB\"\n");
  EXPECT_EQ(parse(text).transport.rogue.verb, Bytes(64'000));
  const RunSummary s = run(text);
  EXPECT_EQ(s.finished, 2u);
  // 2 MB in 64 KB verbs: 32 (rounded up) application verbs per flow, each its own message.
  EXPECT_EQ(s.transport.messages, 2u * 32);
  const RunSummary whole = run(rogue_star("rogue-rc", ""));
  EXPECT_EQ(whole.transport.messages, 2u);
}

// [transport] rtt_noise: uniform noise on every sample before the window; the trace shows it.
TEST(RogueScenario, RttNoiseIsAddedToEverySample) {
  const std::string traced = "[metrics]\ncc_trace = true\n";
  std::string noisy = rogue_star("rogue-rc", traced);
  noisy.insert(noisy.find("[[workload]]"), "rtt_noise = \"200us\"\n");
  EXPECT_EQ(parse(noisy).transport.rogue.rtt_noise, Time::us(200));
  const auto max_rtt = [](const RunSummary& s) {
    Time m = Time::zero();
    for (const metrics::CcTraceRow& r : s.metrics.cc_trace) m = std::max(m, r.rtt);
    return m;
  };
  const RunSummary clean = run(rogue_star("rogue-rc", traced));
  const RunSummary with_noise = run(noisy);
  EXPECT_EQ(with_noise.finished, 2u);
  EXPECT_GT(max_rtt(with_noise), max_rtt(clean) + Time::us(100));
}

// [transport] rate_basis and sample_applied_rate (issue 24, the Vegas floor): parsed into the
// connection's config; paced at cwnd / RTT the limits the trace shows go below the cwnd /
// base_rtt floor, and both flows still finish. A rate step of the line rate lets each limit
// reach its target at once (these flows are too short for 1 Gb/s steps to get there).
TEST(RogueScenario, RateBasisAndAppliedRateSamplesReachTheConnection) {
  const std::string traced = "[metrics]\ncc_trace = true\n";
  std::string per_rtt = rogue_star("rogue-rc", traced);
  per_rtt.insert(per_rtt.find("[[workload]]"),
                 "literal_vegas = true\nrate_step = \"10Gbps\"\nrate_basis = \"current_rtt\"\n"
                 "sample_applied_rate = true\n");
  const auto sc = parse(per_rtt);
  EXPECT_EQ(sc.transport.cc.vegas.params.rate_basis, transport::VegasRateBasis::current_rtt);
  EXPECT_TRUE(sc.transport.rogue.sample_applied_rate);
  std::string literal = rogue_star("rogue-rc", traced);
  literal.insert(literal.find("[[workload]]"), "literal_vegas = true\nrate_step = \"10Gbps\"\n");
  EXPECT_FALSE(parse(literal).transport.rogue.sample_applied_rate);
  const auto least_limit = [](const RunSummary& s) {
    uint64_t least = 0;  // bit/s; 0: no limit set
    for (const metrics::CcTraceRow& r : s.metrics.cc_trace) {
      if (!r.sample && r.rate_bps > 0 && (least == 0 || r.rate_bps < least)) least = r.rate_bps;
    }
    return least;
  };
  const RunSummary base = run(literal);
  const RunSummary current = run(per_rtt);
  EXPECT_EQ(current.finished, 2u);
  ASSERT_GT(least_limit(base), 0u);
  ASSERT_GT(least_limit(current), 0u);
  EXPECT_LT(least_limit(current), least_limit(base));
}

// [transport] rc_anchor_every (issue 24, the anchored RC estimator): parsed into the
// connection's config (0, §3.3's chain, when unset), and flows finish with it.
TEST(RogueScenario, RcAnchorEveryReachesTheConnection) {
  std::string anchored = rogue_star("rogue-rc", "");
  anchored.insert(anchored.find("[[workload]]"), "rc_anchor_every = 2\n");
  const auto sc = parse(anchored);
  EXPECT_EQ(sc.transport.rogue.rc_anchor_every, 2u);
  EXPECT_EQ(parse(rogue_star("rogue-rc", "")).transport.rogue.rc_anchor_every, 0u);
  EXPECT_EQ(run(anchored).finished, 2u);
}

}  // namespace
}  // namespace bifrost::sim
