// Background reconnect (A.3): a QP given up is replaced by a fresh QP pair on a new UDP source
// port, agreed by control messages on the UD QP, in both modes; lost control messages are
// repeated, crossing requests agree on one pair, and an unanswered reconnect fails the
// connection only when no QP is left.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>

#include "transport_pair.h"

namespace bifrost::transport {
namespace {

using testing::TransportPair;
using testing::TransportPairConfig;

TransportPairConfig config_for(Reliability reliability) {
  TransportPairConfig c = testing::control_test_config(reliability);
  c.transport.rc_timeout = 2;  // 16 us
  c.transport.min_rto = Time::us(100);
  return c;
}

std::set<uint16_t> source_ports(TransportPair& pair) {
  std::set<uint16_t> ports;
  for (int side = 0; side < 2; ++side) {
    for (const Path& q : pair.side(side).connection->qps()) ports.insert(q.source_port);
  }
  return ports;
}

// Every QP of a side is connected to the peer's QP of the same index, and vice versa.
::testing::AssertionResult pairs_agree(TransportPair& pair) {
  const auto& a = pair.side(0).connection->qps();
  const auto& b = pair.side(1).connection->qps();
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].role == PathRole::failed || b[i].role == PathRole::failed) continue;
    if (a[i].qp->query().dest_qp_num != b[i].qp->qp_num() ||
        b[i].qp->query().dest_qp_num != a[i].qp->qp_num()) {
      return ::testing::AssertionFailure() << "QP index " << i << " is not one pair";
    }
  }
  return ::testing::AssertionSuccess();
}

// Drops every packet either side sends from one of the `dead` UDP source ports (a path that
// ECMP maps those flows onto has failed) between `from` and `until`.
void kill_paths(TransportPair& pair, const std::set<uint16_t>& dead, Time from,
                Time until = Time::max()) {
  sim::EventKernel& kernel = pair.kernel();
  for (int side = 0; side < 2; ++side) {
    pair.wire().set_drop_filter(side, [&kernel, &dead, from, until](const world::Packet& p) {
      return kernel.now() > from && kernel.now() < until && dead.contains(p.src.port);
    });
  }
}

// Sends `count` messages of 50 KB from side 0; returns a counter of those completed as failed.
std::shared_ptr<int> send_counting_failures(TransportPair& pair, int count) {
  auto failed = std::make_shared<int>(0);
  TransportPair::Side& a = pair.side(0);
  for (int i = 0; i < count; ++i) {
    a.connection->send(
        MessageBuffer{a.app_region, TransportPair::kAppBase, 50000},
        [failed](const SendCompletion& done) { *failed += done.status == SendStatus::failed; });
  }
  return failed;
}

void send_mix(TransportPair& pair, int from, int count) {
  for (int i = 0; i < count; ++i) pair.send(from, i % 3 == 0 ? 150000 : 2000);
}

class ReconnectBothModes : public ::testing::TestWithParam<Reliability> {};

// Every path the connection started with dies (all six QPs' source ports), in both directions.
// Backups are on dead paths too, so only reconnects, whose fresh QPs get new source ports and
// with them new ECMP paths, can carry the traffic.
TEST_P(ReconnectBothModes, FreshSourcePortsEscapeDeadPaths) {
  TransportPair pair(config_for(GetParam()));
  const std::set<uint16_t> dead = source_ports(pair);
  kill_paths(pair, dead, Time::us(30));
  send_mix(pair, 0, 60);
  send_mix(pair, 1, 20);
  const bool done = pair.run_until_done(Time::ms(500));
  ASSERT_TRUE(done);
  EXPECT_TRUE(pair.all_delivered_once());
  EXPECT_TRUE(pairs_agree(pair));
  const ConnectionStats& s = pair.side(0).connection->stats();
  EXPECT_GE(s.reconnects_done, 1u);
  EXPECT_EQ(s.reconnects_abandoned, 0u);
  for (int side = 0; side < 2; ++side) {
    const Connection& c = *pair.side(side).connection;
    const auto primary = std::find_if(c.qps().begin(), c.qps().end(),
                                      [](const Path& q) { return q.role == PathRole::primary; });
    ASSERT_NE(primary, c.qps().end());
    EXPECT_FALSE(dead.contains(primary->source_port)) << "side " << side;
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, ReconnectBothModes,
                         ::testing::Values(Reliability::hardware_rc, Reliability::software_uc),
                         testing::mode_name);

// The replies to the first two requests are lost: the initiator repeats its request, the peer
// answers the repeats without replacing its QP again, and one QP pair results.
TEST(Reconnect, LostRepliesAreAnsweredAgainWithoutANewQp) {
  TransportPair pair(config_for(Reliability::hardware_rc));
  const uint32_t primary = pair.side(0).connection->qps()[0].qp->qp_num();
  sim::EventKernel& kernel = pair.kernel();
  int replies_dropped = 0;
  pair.wire().set_drop_filter(1, [&kernel, primary, &replies_dropped](const world::Packet& p) {
    if (p.roce.bth.opcode == wire::Opcode::kUdSendOnly) {
      // In RC mode nothing but control messages travels on the UD QP.
      return replies_dropped++ < 2;
    }
    return p.roce.bth.opcode == wire::Opcode::kRcAcknowledge && p.roce.bth.dest_qp == primary &&
           kernel.now() > Time::us(30);
  });
  send_mix(pair, 0, 40);
  ASSERT_TRUE(pair.run_until_done(Time::ms(50)));
  EXPECT_TRUE(pair.all_delivered_once());
  kernel.run_until(kernel.now() + Time::ms(2));  // the backup finished the transfer first
  const ConnectionStats& a = pair.side(0).connection->stats();
  const ConnectionStats& b = pair.side(1).connection->stats();
  EXPECT_EQ(a.reconnects_done, 1u);
  EXPECT_EQ(a.requests_sent, 3u);
  EXPECT_EQ(b.replies_sent, 3u);
  EXPECT_EQ(b.reconnects_accepted, 1u);
  EXPECT_GE(a.last_reconnect_time, Time::us(400));  // two request intervals
  EXPECT_TRUE(pairs_agree(pair));
}

// Both sides give up QP 0 within microseconds while a request takes 200 us to cross: the
// requests cross, exactly one side yields, and both end with one agreed pair.
TEST(Reconnect, CrossingRequestsAgreeOnOnePair) {
  TransportPairConfig c = config_for(Reliability::hardware_rc);
  c.wire.delay = Time::us(200);
  c.transport.rc_timeout = 8;  // 1 ms, above the 400 us round trip
  c.transport.reconnect_interval = Time::ms(2);
  TransportPair pair(c);
  std::set<uint16_t> dead;
  for (int side = 0; side < 2; ++side) {
    dead.insert(pair.side(side).connection->qps()[0].source_port);
  }
  kill_paths(pair, dead, Time::us(100));
  send_mix(pair, 0, 20);
  send_mix(pair, 1, 20);
  ASSERT_TRUE(pair.run_until_done(Time::ms(200)));
  EXPECT_TRUE(pair.all_delivered_once());
  EXPECT_TRUE(pairs_agree(pair));
  const ConnectionStats& a = pair.side(0).connection->stats();
  const ConnectionStats& b = pair.side(1).connection->stats();
  EXPECT_EQ(a.reconnects_started, 1u);
  EXPECT_EQ(b.reconnects_started, 1u);
  // One side ignored the other's request and the other carried it out instead of its own.
  EXPECT_EQ(a.controls_ignored + b.controls_ignored, 1u);
  EXPECT_EQ(a.reconnects_accepted + b.reconnects_accepted, 1u);
  EXPECT_EQ(a.reconnects_done + b.reconnects_done, 2u);
}

// With no backup the sender waits for the reconnect instead of failing its messages.
TEST(Reconnect, WithoutBackupsTheSenderWaitsForTheFreshQp) {
  TransportPairConfig c = config_for(Reliability::hardware_rc);
  c.transport.backup_qps = 0;
  TransportPair pair(c);
  const std::set<uint16_t> dead = source_ports(pair);
  kill_paths(pair, dead, Time::us(30), Time::us(300));
  send_mix(pair, 0, 30);
  ASSERT_TRUE(pair.run_until_done(Time::ms(50)));
  EXPECT_TRUE(pair.all_delivered_once());
  EXPECT_EQ(pair.side(0).connection->sender_stats().messages_failed, 0u);
  EXPECT_GE(pair.side(0).connection->stats().reconnects_done, 1u);
  EXPECT_EQ(pair.side(0).connection->sender_stats().failovers, 0u);  // nothing to fail over to
}

// The peer is gone: the reconnect is abandoned after its attempts and, with no QP left, every
// queued message completes as failed; the connection goes idle rather than hanging.
TEST(Reconnect, UnansweredReconnectFailsTheConnectionWhenNoQpIsLeft) {
  TransportPairConfig c = config_for(Reliability::hardware_rc);
  c.transport.backup_qps = 0;
  c.transport.reconnect_attempts = 3;
  TransportPair pair(c);
  sim::EventKernel& kernel = pair.kernel();
  pair.wire().set_drop_filter(
      1, [&kernel](const world::Packet&) { return kernel.now() > Time::us(20); });
  const auto failed = send_counting_failures(pair, 10);
  kernel.run_until(Time::ms(20));
  const Connection& a = *pair.side(0).connection;
  EXPECT_EQ(a.stats().reconnects_started, 1u);
  EXPECT_EQ(a.stats().requests_sent, 3u);
  EXPECT_EQ(a.stats().reconnects_abandoned, 1u);
  EXPECT_EQ(a.qps()[0].role, PathRole::failed);
  EXPECT_GT(*failed, 0);
  EXPECT_EQ(*failed + static_cast<int>(a.sender_stats().messages_sent), 10);
  EXPECT_TRUE(a.idle());
  // A message sent to the dead connection completes as failed too, on the next turn.
  const auto late = send_counting_failures(pair, 1);
  kernel.run_until(kernel.now() + Time::us(1));
  EXPECT_EQ(*late, 1);
}

// The same with a backup: the peer vanishes, the primary and then the backup fail over, and
// the messages fail only once neither reconnect got an answer.
TEST(Reconnect, RcWithEveryQpFailedCompletesMessagesAsFailed) {
  TransportPairConfig c = config_for(Reliability::hardware_rc);
  c.transport.rc_timeout = 1;
  c.transport.backup_qps = 1;
  TransportPair pair(c);
  sim::EventKernel& kernel = pair.kernel();
  pair.wire().set_drop_filter(0, [&kernel](const world::Packet&) {
    return kernel.now() > Time::us(20);  // the peer vanishes
  });
  const auto failed = send_counting_failures(pair, 10);
  kernel.run_until(Time::ms(20));
  const Connection& a = *pair.side(0).connection;
  EXPECT_EQ(*failed + static_cast<int>(a.sender_stats().messages_sent), 10);
  EXPECT_GT(*failed, 0);
  EXPECT_EQ(a.sender_stats().failovers, 1u);
  EXPECT_EQ(a.stats().reconnects_abandoned, 2u);
  EXPECT_TRUE(a.idle());
}

}  // namespace
}  // namespace bifrost::transport
