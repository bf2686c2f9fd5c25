// RoGUE connections end to end on two soft RNICs: verbs complete exactly once with their bytes
// in place, batching and signalling as §3.1 says, RTT samples from the RC completions and the
// UC echoes, and the shadow QP taking over failed RC QPs under loss.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/rnic/device.h"
#include "bifrost/transport/rtt/rogue_batch.h"
#include "rogue_pair.h"

namespace bifrost::transport::testing {
namespace {

using rogue::QpType;
using rogue::RogueConfig;

sim::LossyWireConfig wire_10g(double loss = 0, uint64_t seed = 1) {
  sim::LossyWireConfig w;
  w.rate = Rate::Gbps(10);
  w.delay = Time::us(2);
  w.framing_bytes = transport::kLineBytesPerFrameBeyondMetered;  // the line RoGUE times against
  w.loss = loss;
  w.seed = seed;
  return w;
}

RogueConfig config(QpType type) {
  RogueConfig c;
  c.qp_type = type;
  return c;
}

TEST(RogueConnection, RcWriteIsCutIntoSegmentsWithOneSignalPerBatch) {
  RoguePair pair(config(QpType::rc), wire_10g());
  pair.write(0, uint64_t{1} << 20);
  ASSERT_TRUE(pair.run_until_done(Time::ms(50)));
  EXPECT_TRUE(pair.all_done_once());
  const rogue::RogueStats& s = pair.connection(0).stats();
  EXPECT_EQ(s.segments_posted, 16u);  // 1 MiB in 64 KiB segments at 10 Gb/s
  EXPECT_EQ(s.batches, 16u);
  EXPECT_EQ(s.signals, 16u);
  EXPECT_EQ(s.rtt_samples + s.held_off_samples, 16u);
  EXPECT_EQ(s.bytes_completed, uint64_t{1} << 20);
}

TEST(RogueConnection, RcReadAndWriteTogether) {
  RoguePair pair(config(QpType::rc), wire_10g());
  for (int i = 0; i < 4; ++i) {
    pair.read(0, 300'000);
    pair.write(0, 200'000);
    pair.write(1, 100'000);
  }
  ASSERT_TRUE(pair.run_until_done(Time::ms(50)));
  EXPECT_TRUE(pair.all_done_once());
  EXPECT_GT(pair.connection(0).stats().rtt_samples, 0u);
}

// rc_anchor_every = 2 (rtt/rogue_rc_estimator.h): every second batch waits for the outstanding
// ones and the limiter's credit, woken by the completion or the refill. READs and WRITEs still
// complete exactly once with their bytes; a WRITE stream's samples stay at the path's RTT
// (no sample below the two 2 us wires, none far above them on an otherwise idle wire).
TEST(RogueConnection, RcAnchoredEstimatorCompletesEveryVerbAndSamplesThePath) {
  RogueConfig c = config(QpType::rc);
  c.rc_anchor_every = 2;
  RoguePair mixed(c, wire_10g());
  for (int i = 0; i < 4; ++i) {
    mixed.write(0, 1'000'000);
    mixed.read(0, 300'000);
  }
  ASSERT_TRUE(mixed.run_until_done(Time::ms(100)));
  EXPECT_TRUE(mixed.all_done_once());

  RoguePair writes(c, wire_10g());
  std::vector<Time> samples;
  writes.connection(0).set_rtt_observer([&](Time rtt) { samples.push_back(rtt); });
  for (int i = 0; i < 16; ++i) writes.write(0, 1'000'000);
  ASSERT_TRUE(writes.run_until_done(Time::ms(100)));
  EXPECT_TRUE(writes.all_done_once());
  ASSERT_GT(samples.size(), 100u);
  const auto [least, most] = std::minmax_element(samples.begin(), samples.end());
  EXPECT_GE(*least, Time::us(4));
  EXPECT_LT(*most, Time::us(40)) << "least " << least->picoseconds();
}

TEST(RogueConnection, SendsAndImmediatesReachTheApplicationOnce) {
  for (const QpType type : {QpType::rc, QpType::uc}) {
    RoguePair pair(config(type), wire_10g());
    for (int i = 0; i < 20; ++i) {
      pair.send(0, 1000 + 100 * i, i % 3 == 0 ? std::optional<uint32_t>(i) : std::nullopt);
      pair.write(0, 70'000, true, 0x1234 + i);
    }
    ASSERT_TRUE(pair.run_until_done(Time::ms(50))) << static_cast<int>(type);
    EXPECT_TRUE(pair.all_done_once()) << static_cast<int>(type);
  }
}

TEST(RogueConnection, UnsignaledVerbsShareOneSignalPerBatch) {
  RoguePair pair(config(QpType::rc), wire_10g());
  constexpr int kVerbs = 1000;
  constexpr uint64_t kVerb = 4096;
  for (int i = 0; i < kVerbs; ++i) pair.write(0, kVerb, i == kVerbs - 1);
  ASSERT_TRUE(pair.run_until_done(Time::ms(50)));
  EXPECT_TRUE(pair.all_done_once());
  const uint64_t batch = pair.connection(0).config().batch();
  // One signal per batch of bytes, and one for the application's own signal.
  EXPECT_LE(pair.connection(0).stats().signals, (kVerbs * kVerb + batch - 1) / batch + 1);
  EXPECT_EQ(pair.completed(0), 1u);
}

TEST(RogueConnection, UcSamplesRttFromTheReceiverLibrarysEchoes) {
  RoguePair pair(config(QpType::uc), wire_10g());
  pair.write(0, uint64_t{4} << 20);
  ASSERT_TRUE(pair.run_until_done(Time::ms(50)));
  EXPECT_TRUE(pair.all_done_once());
  EXPECT_EQ(pair.connection(1).stats().echoes_sent, pair.connection(0).stats().batches);
  EXPECT_EQ(pair.connection(0).stats().rtt_samples + pair.connection(0).stats().held_off_samples,
            pair.connection(0).stats().batches);
  EXPECT_EQ(pair.device(0).data_path_counters().tx_retransmitted, 0u);
}

TEST(RogueConnection, UcLossesAreReportedAndNeverRepaired) {
  RoguePair pair(config(QpType::uc), wire_10g(0.01, 7));
  for (int i = 0; i < 64; ++i) pair.write(0, 256 * 1024);
  ASSERT_TRUE(pair.run_until_done(Time::ms(500)));
  const rogue::RogueStats& s = pair.connection(0).stats();
  EXPECT_GT(s.lost_echoes + s.sample_timeouts, 0u);
  EXPECT_EQ(pair.device(0).data_path_counters().tx_retransmitted, 0u);
}

// Blackouts long enough for two QP timeouts fail the QP (retry count 1): every 8 ms the wire
// drops everything for 3 ms, in both directions or (every other time) only the ACKs, so that
// some verbs arrive and only their acknowledgement is lost.
void add_blackouts(RoguePair& pair) {
  sim::EventKernel* kernel = &pair.kernel();
  const auto dark = [kernel](bool acks_only_window) {
    const int64_t t = kernel->now().picoseconds() / Time::ms(1).picoseconds();
    const bool dark_now = t % 8 >= 5;
    const bool acks_only = (t / 8) % 2 == 1;
    return dark_now && (acks_only_window || !acks_only);
  };
  pair.wire().set_drop_filter(0, [dark](const world::Packet&) { return dark(false); });
  pair.wire().set_drop_filter(1, [dark](const world::Packet&) { return dark(true); });
}

TEST(RogueConnection, RcShadowTakesOverUnderLossAndEveryVerbCompletesOnce) {
  for (const uint64_t seed : {1, 2, 3}) {
    RogueConfig c = config(QpType::rc);
    c.rc_timeout = 8;  // ~1 ms: a test that waits for many timeouts stays short
    sim::LossyWireConfig w = wire_10g(0.005, seed);
    w.duplicate = 0.01;
    w.reorder = 0.01;
    RoguePair pair(c, w);
    add_blackouts(pair);
    for (int i = 0; i < 40; ++i) {
      pair.write(0, 1'000'000);  // 40 MB: about 35 ms at 10 Gb/s, four blackouts
      pair.send(0, 2000);
      pair.write(0, 3000, true, 77);
      if (i % 4 == 0) pair.read(0, 50'000);
    }
    ASSERT_TRUE(pair.run_until_done(Time::s(5))) << seed;
    EXPECT_TRUE(pair.all_done_once()) << seed;
    const rogue::RogueStats& s = pair.connection(0).stats();
    EXPECT_GT(s.shadow_switches, 0u) << seed;
    EXPECT_GT(s.resyncs + pair.connection(1).stats().resyncs, 0u) << seed;
    for (const Path& p : pair.connection(0).paths()) {
      EXPECT_EQ(p.qp->query().retry_cnt, 1) << seed;
    }
  }
}

}  // namespace
}  // namespace bifrost::transport::testing

namespace bifrost::transport::testing {
namespace {

TEST(RogueConnection, PerPriorityLimitersGoOnePerConnectionAndANinthIsRefused) {
  sim::TransportPairConfig c;
  c.bifrost_connection = false;
  c.device.per_priority_limiters = 8;  // a ConnectX-3 Pro
  sim::TransportPair pair(c);
  rnic::Device& device = *pair.side(0).device;
  Endpoint& endpoint = *pair.side(0).endpoint;
  std::vector<std::unique_ptr<rogue::RogueConnection>> connections;
  std::vector<const rnic::RateLimiter*> limiters;
  for (int i = 0; i < 8; ++i) {
    connections.push_back(std::make_unique<rogue::RogueConnection>(endpoint, RogueConfig{}));
    const auto& paths = connections.back()->paths();
    ASSERT_EQ(paths.size(), 2u);  // active and shadow
    // The shadow shares its active QP's limiter; no other connection has it.
    EXPECT_EQ(device.rate_limiter(*paths[0].qp), device.rate_limiter(*paths[1].qp));
    limiters.push_back(device.rate_limiter(*paths[0].qp));
  }
  std::sort(limiters.begin(), limiters.end());
  EXPECT_EQ(std::unique(limiters.begin(), limiters.end()), limiters.end());
  EXPECT_THROW(rogue::RogueConnection(endpoint, RogueConfig{}), Error);
  connections.pop_back();  // its limiter is free again
  EXPECT_NO_THROW(rogue::RogueConnection(endpoint, RogueConfig{}));
}

}  // namespace
}  // namespace bifrost::transport::testing
