// The "dcqcn" congestion control end to end: a wire that CE-marks ECN-capable packets stands
// for a marking bottleneck; the receiving RNIC flags the marked WQEs' completions, the receiver
// echoes them in its software ACKs, and the sender's DCQCN puts a rate below line rate on its
// primary QP's NIC rate limiter. Delivery stays exactly-once and intact throughout.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "bifrost/core/error.h"
#include "transport_pair.h"

namespace bifrost::transport {
namespace {

using testing::TransportPair;
using testing::TransportPairConfig;

constexpr Rate kLine = Rate::Gbps(100);

TransportPairConfig marking(double ce_mark, CcKind cc = CcKind::dcqcn) {
  TransportPairConfig c;
  c.wire.delay = Time::us(2);
  c.wire.rate = kLine;
  c.wire.ce_mark = ce_mark;
  c.device.data_path.ecn_capable = true;  // ECT(0) on data packets, as DCQCN NICs send them
  c.transport.cc.kind = cc;
  c.transport.line_rate_bps = static_cast<uint64_t>(kLine.bits_per_second());
  c.transport.base_rtt = Time::us(10);
  return c;
}

rnic::QueuePair& primary(TransportPair& pair, int side) {
  for (const Path& q : pair.side(side).connection->qps()) {
    if (q.role == PathRole::primary) return *q.qp;
  }
  throw Error("side {} has no primary QP", side);
}

// What the NIC limiter of side 0's primary QP and its CC said while the run went.
struct Observed {
  std::optional<Rate> least_limit;  // the least rate in force on the limiter
  std::optional<Rate> least_pacing;
  Time duration;
};

Observed run(TransportPair& pair, Time limit) {
  Observed o;
  const Time start = pair.kernel().now();
  const Time end = start + limit;
  while (!pair.run_until_done(Time::us(2)) && pair.kernel().now() < end) {
    const rnic::RateLimiter* limiter = primary(pair, 0).scheduling().limiter;
    if (limiter != nullptr && limiter->limited()) {
      o.least_limit = std::min(o.least_limit.value_or(limiter->rate()), limiter->rate());
    }
    if (const auto r = pair.side(0).connection->pacing_rate()) {
      o.least_pacing = std::min(o.least_pacing.value_or(*r), *r);
    }
  }
  o.duration = pair.kernel().now() - start;
  return o;
}

void send_mix(TransportPair& pair, int from, int rounds) {
  for (int i = 0; i < rounds; ++i) {
    for (const uint64_t size : {8u, 3000u, 32768u, 100000u, 1u << 20}) pair.send(from, size);
  }
}

TEST(DcqcnConnection, CeMarksPaceThePrimaryQpBelowLineRate) {
  TransportPair pair(marking(0.05));
  send_mix(pair, 0, 8);
  send_mix(pair, 1, 2);
  const Observed o = run(pair, Time::ms(200));
  ASSERT_TRUE(pair.run_until_done(Time::zero()));
  EXPECT_TRUE(pair.all_delivered_once());

  const ReceiverStats& r = pair.side(1).connection->receiver_stats();
  const SenderStats& s = pair.side(0).connection->sender_stats();
  EXPECT_GT(r.ce_marked_wqes, 0u);
  EXPECT_GT(s.ecn_echoes, 0u);
  EXPECT_LE(s.ecn_echoes, s.acks_received);
  EXPECT_GT(s.pacing_updates, 0u);
  // The CC cut the rate, and the NIC's limiter of the primary QP enforced it.
  ASSERT_TRUE(o.least_pacing);
  EXPECT_LT(*o.least_pacing, kLine);
  ASSERT_TRUE(o.least_limit);
  EXPECT_LT(*o.least_limit, kLine);
  EXPECT_GT(*o.least_limit, Rate::bps(0));
}

// The same traffic without marks: nothing is echoed and the limiter is never touched; with
// marks the same bytes take longer (simulated time): the rate on the NIC limiter, and the
// window sized by it, went down.
TEST(DcqcnConnection, WithoutMarksTheLimiterIsLeftAloneAndTheRunIsFaster) {
  TransportPair clean(marking(0));
  send_mix(clean, 0, 8);
  const Observed fast = run(clean, Time::ms(200));
  ASSERT_TRUE(clean.run_until_done(Time::zero()));
  EXPECT_TRUE(clean.all_delivered_once());
  EXPECT_EQ(clean.side(1).connection->receiver_stats().ce_marked_wqes, 0u);
  EXPECT_EQ(clean.side(0).connection->sender_stats().ecn_echoes, 0u);
  EXPECT_EQ(clean.side(0).connection->sender_stats().pacing_updates, 0u);
  EXPECT_EQ(primary(clean, 0).scheduling().limiter, nullptr);
  EXPECT_FALSE(fast.least_pacing);

  TransportPair marked(marking(0.05));
  send_mix(marked, 0, 8);
  const Observed slow = run(marked, Time::ms(200));
  ASSERT_TRUE(marked.run_until_done(Time::zero()));
  EXPECT_TRUE(marked.all_delivered_once());
  EXPECT_GT(slow.duration, fast.duration);
}

// A CC that does not pace (swift) sees the echo but leaves the NIC's limiter alone.
TEST(DcqcnConnection, SwiftIgnoresTheEchoAndNeverPaces) {
  TransportPair pair(marking(0.05, CcKind::swift));
  send_mix(pair, 0, 4);
  const Observed o = run(pair, Time::ms(200));
  ASSERT_TRUE(pair.run_until_done(Time::zero()));
  EXPECT_TRUE(pair.all_delivered_once());
  EXPECT_GT(pair.side(0).connection->sender_stats().ecn_echoes, 0u);
  EXPECT_EQ(pair.side(0).connection->sender_stats().pacing_updates, 0u);
  EXPECT_FALSE(o.least_limit);
}

// Marks, loss, duplication and reordering together: pacing does not disturb exactly-once.
TEST(DcqcnConnection, PacedUnderLossDeliversExactlyOnce) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    TransportPairConfig c = marking(0.03);
    c.wire.loss = 0.01;
    c.wire.duplicate = 0.01;
    c.wire.reorder = 0.02;
    c.wire.seed = seed;
    c.endpoint.seed = seed;
    TransportPair pair(c);
    send_mix(pair, 0, 4);
    send_mix(pair, 1, 4);
    const Observed o = run(pair, Time::ms(500));
    ASSERT_TRUE(pair.run_until_done(Time::zero())) << "seed " << seed;
    EXPECT_TRUE(pair.all_delivered_once()) << "seed " << seed;
    EXPECT_TRUE(o.least_limit) << "seed " << seed;
  }
}

// A rate-sized window blocks the next chunk while less than a quarter of it is free (the
// silly-window rule). The chunk before such a pause must carry the hint bit: without it a lost
// chunk had no ACK and no tail probe to reveal it, only the RTO (10 timeouts over the seeds of
// the test above before the hint followed the rule).
TEST(DcqcnConnection, LostChunksBeforeAWindowPauseAreFoundWithoutTheRto) {
  TransportPair pair(marking(0.05));
  int last_packets = 0;
  pair.wire().set_drop_filter(0, [&last_packets](const world::Packet& p) {
    return p.roce.bth.opcode == wire::Opcode::kUcWriteLastImm && ++last_packets % 6 == 0;
  });
  send_mix(pair, 0, 8);
  const Observed o = run(pair, Time::ms(200));
  ASSERT_TRUE(pair.run_until_done(Time::zero()));
  EXPECT_TRUE(pair.all_delivered_once());
  ASSERT_TRUE(o.least_limit);
  const SenderStats& s = pair.side(0).connection->sender_stats();
  EXPECT_GT(s.retransmitted_wqes, 0u);
  EXPECT_EQ(s.timeouts, 0u);
}

TEST(DcqcnConnection, NeedsSoftwareReliability) {
  TransportPairConfig c = marking(0);
  c.transport.reliability = Reliability::hardware_rc;
  EXPECT_THROW(c.transport.validate(), Error);
  c.transport.cc_location = CcLocation::nic;  // the NIC's DCQCN instead: fine
  EXPECT_NO_THROW(c.transport.validate());
}

// RoGUE's rule: after a rate change, RTT samples of what was queued under the old limit (and of
// the next 160 KB) reach the RTO estimate but not the CC. Without the setting every sample
// reaches the CC.
TEST(DcqcnConnection, RttSamplesAreHeldOffAfterARateChange) {
  const auto samples = [](uint64_t holdoff) {
    TransportPairConfig c = marking(0.05);
    c.transport.rtt_holdoff_after_rate_change = holdoff;
    TransportPair pair(c);
    send_mix(pair, 0, 8);
    run(pair, Time::ms(200));
    EXPECT_TRUE(pair.run_until_done(Time::zero()));
    EXPECT_TRUE(pair.all_delivered_once());
    return pair.side(0).connection->sender_stats();
  };
  const SenderStats off = samples(0);
  const SenderStats on = samples(160 * 1024);
  ASSERT_GT(on.pacing_updates, 1u) << "the rate must change, or this test shows nothing";
  EXPECT_EQ(off.rtt_samples_held_off, 0u);
  EXPECT_GT(on.rtt_samples_held_off, 0u);
  EXPECT_LT(on.rtt_samples_held_off, on.rtt_samples) << "samples between changes still count";
}

}  // namespace
}  // namespace bifrost::transport
