// [transport] profile = "paper": the Bifröst paper's configuration (TransportConfig::paper())
// named in a scenario. The parser seeds the keys from the paper's values, each key given still
// overrides its own, and what a run builds from the scenario is paper() field by field.
#include <gtest/gtest.h>

#include <string>

#include "bifrost/core/error.h"
#include "bifrost/transport/config.h"
#include "scenario_text.h"
#include "sim/flow_carriers.h"

namespace bifrost::sim {
namespace {

using testing::parse;

// Four 100 Gb/s hosts on soft RNICs and a [transport] holding `keys`.
std::string with_transport(const std::string& keys) {
  return "[simulation]\nmtu = 1024\n[topology]\nkind = \"star\"\nhosts = 4\n"
         "host_rate = \"25Gbps\"\n[nic]\nmodel = \"rnic\"\n[transport]\n" +
         keys;
}

TEST(ScenarioPaperProfile, SeedsTheKeysWithThePapersValues) {
  const auto t = parse(with_transport("kind = \"bifrost-uc\"\nprofile = \"paper\"\n")).transport;
  EXPECT_TRUE(t.paper_profile);
  EXPECT_EQ(t.ack_timer, Time::us(120));
  EXPECT_EQ(t.ack_every_wqes, 32u);
  EXPECT_EQ(t.ack_every_bytes, Bytes(32 * 1024));
  EXPECT_FALSE(t.hint_when_idle);  // A.1.2: only the window's last WQE
  EXPECT_FALSE(t.tail_probe);      // a lost tail waits for the RTO
  EXPECT_EQ(t.chunk_loss_budget, 0.0);
  EXPECT_FALSE(t.cc.swift.params.target_follows_min_rtt);
  EXPECT_FALSE(t.cc.swift.params.loss_gate);  // every loss cuts
  // The product default differs in exactly those choices.
  const auto d = parse(with_transport("kind = \"bifrost-uc\"\n")).transport;
  EXPECT_FALSE(d.paper_profile);
  EXPECT_TRUE(d.hint_when_idle);
  EXPECT_TRUE(d.tail_probe);
  EXPECT_GT(d.chunk_loss_budget, 0.0);
  EXPECT_TRUE(d.cc.swift.params.target_follows_min_rtt);
  EXPECT_TRUE(d.cc.swift.params.loss_gate);
}

TEST(ScenarioPaperProfile, KeysGivenStillOverrideTheProfile) {
  const auto t =
      parse(with_transport("kind = \"bifrost-rc\"\nprofile = \"paper\"\n"
                           "ack_timer = \"30us\"\nack_every_wqes = 8\n"
                           "ack_every_bytes = \"8KiB\"\nhint_when_idle = true\ntail_probe = true\n"
                           "[transport.cc]\nkind = \"swift\"\n"
                           "target_follows_min_rtt = true\n"))
          .transport;
  EXPECT_EQ(t.ack_timer, Time::us(30));
  EXPECT_EQ(t.ack_every_wqes, 8u);
  EXPECT_EQ(t.ack_every_bytes, Bytes(8 * 1024));
  EXPECT_TRUE(t.hint_when_idle);
  EXPECT_TRUE(t.tail_probe);
  EXPECT_TRUE(t.cc.swift.params.target_follows_min_rtt);
  EXPECT_TRUE(t.cc.swift.params.loss_to_minimum);  // the profile's, not overridden
}

TEST(ScenarioPaperProfile, RejectsAnUnknownProfileAndBadCoalescing) {
  EXPECT_THROW(parse(with_transport("kind = \"bifrost-uc\"\nprofile = \"fast\"\n")), Error);
  EXPECT_THROW(parse(with_transport("kind = \"bifrost-uc\"\nack_every_wqes = 33\n")), Error);
  EXPECT_THROW(parse(with_transport("kind = \"bifrost-uc\"\nack_every_wqes = 0\n")), Error);
  EXPECT_THROW(parse(with_transport("kind = \"rogue-rc\"\nprofile = \"paper\"\n")), Error);
}

TEST(ScenarioPaperProfile, TheRunBuildsTransportConfigPaper) {
  const auto sc = parse(with_transport("kind = \"bifrost-uc\"\nprofile = \"paper\"\n"));
  const transport::TransportConfig built = detail::transport_flows_config(sc).transport;
  transport::TransportConfig paper = transport::TransportConfig::paper();
  // What the setup sets, not the profile: the host links' rate and the MTU.
  EXPECT_EQ(built.line_rate_bps, 25'000'000'000u);
  EXPECT_EQ(built.mtu, 1024u);
  EXPECT_EQ(built.reliability, transport::Reliability::software_uc);
  EXPECT_EQ(built.unit_size, paper.unit_size);
  EXPECT_EQ(built.max_chunk, paper.max_chunk);
  EXPECT_EQ(built.send_threshold, paper.send_threshold);
  EXPECT_EQ(built.chunk_loss_budget, paper.chunk_loss_budget);
  EXPECT_EQ(built.chunking, paper.chunking);
  EXPECT_EQ(built.base_rtt, paper.base_rtt);
  EXPECT_EQ(built.min_rto, paper.min_rto);
  EXPECT_EQ(built.ack_timer, paper.ack_timer);
  EXPECT_EQ(built.ack_every_wqes, paper.ack_every_wqes);
  EXPECT_EQ(built.ack_every_bytes, paper.ack_every_bytes);
  EXPECT_EQ(built.hint_when_idle, paper.hint_when_idle);
  EXPECT_EQ(built.tail_probe, paper.tail_probe);
  EXPECT_EQ(built.ack_path, paper.ack_path);
  EXPECT_EQ(built.backup_qps, paper.backup_qps);
  EXPECT_EQ(built.rc_retry_cnt, paper.rc_retry_cnt);
  EXPECT_EQ(built.rc_timeout, paper.rc_timeout);
  EXPECT_EQ(built.max_outstanding_wqes, paper.max_outstanding_wqes);
  EXPECT_EQ(built.cc.kind, paper.cc.kind);
  const transport::SwiftParams& s = built.cc.swift.params;
  const transport::SwiftParams& p = paper.cc.swift.params;
  EXPECT_EQ(s.loss_to_minimum, p.loss_to_minimum);
  EXPECT_EQ(s.target_follows_min_rtt, p.target_follows_min_rtt);
  EXPECT_EQ(s.loss_needs_queuing, p.loss_needs_queuing);
  EXPECT_EQ(s.loss_gate, p.loss_gate);
  EXPECT_EQ(s.random_loss_tolerance, p.random_loss_tolerance);
  EXPECT_EQ(s.additive_increase, p.additive_increase);
  EXPECT_EQ(s.beta, p.beta);
  EXPECT_EQ(s.max_decrease, p.max_decrease);
}

}  // namespace
}  // namespace bifrost::sim
