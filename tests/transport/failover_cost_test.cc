// Failover pays the soft RNIC's QP transition costs (rnic::QpTransitionCosts, §3.4.2): when
// the primary QP's path dies, a ready backup carries on after ~60 us, while a connection with
// no backup waits for its QP to be re-established, ~5 ms.
#include <gtest/gtest.h>

#include "transport_pair.h"

namespace bifrost::transport {
namespace {

using testing::TransportPair;
using testing::TransportPairConfig;

TransportPairConfig config(Reliability reliability, uint32_t backups) {
  TransportPairConfig c;
  c.wire.delay = Time::us(2);
  c.transport.reliability = reliability;
  c.transport.backup_qps = backups;
  c.transport.rc_timeout = 2;           // 16 us: RC gives up the QP within ~50 us
  c.transport.min_rto = Time::us(100);  // UC gives up after 3 timeouts: 100 + 200 + 400 us
  return c;
}

// Kills the path of both primary QPs (their UDP source ports) from `from` on, sends a stream
// of messages from side 0 and returns its sender's stats once everything arrived.
SenderStats fail_primary_path(TransportPair& pair, Time from) {
  const uint16_t dead_a = pair.side(0).connection->qps()[0].source_port;
  const uint16_t dead_b = pair.side(1).connection->qps()[0].source_port;
  sim::EventKernel& kernel = pair.kernel();
  for (int side = 0; side < 2; ++side) {
    pair.wire().set_drop_filter(side, [&kernel, from, dead_a, dead_b](const world::Packet& p) {
      return kernel.now() > from && (p.src.port == dead_a || p.src.port == dead_b);
    });
  }
  for (int i = 0; i < 60; ++i) pair.send(0, i % 4 == 0 ? 100000 : 3000);
  EXPECT_TRUE(pair.run_until_done(Time::ms(100)));
  EXPECT_TRUE(pair.all_delivered_once());
  return pair.side(0).connection->sender_stats();
}

class FailoverCost : public ::testing::TestWithParam<Reliability> {};

TEST_P(FailoverCost, AReadyBackupTakesOverAfterItsActivationCost) {
  TransportPair pair(config(GetParam(), 2));
  const SenderStats s = fail_primary_path(pair, Time::us(30));
  EXPECT_EQ(s.failovers, 1u);
  RecordProperty("stall_ns", std::to_string(s.last_failover_gap.picoseconds() / 1000));
  EXPECT_GE(s.last_failover_gap, Time::us(60));  // QpTransitionCosts::activate_ready
  // Over UC the stall also holds the software ACK of the resent WQEs (at most its timer).
  const Time ack_wait =
      GetParam() == Reliability::software_uc ? pair.side(1).connection->config().ack_timer : Time{};
  EXPECT_LT(s.last_failover_gap, Time::us(60 + 40) + ack_wait);
}

TEST_P(FailoverCost, WithoutABackupTheStallIsTheQpRecovery) {
  TransportPair pair(config(GetParam(), 0));
  const SenderStats s = fail_primary_path(pair, Time::us(30));
  EXPECT_EQ(s.failovers, 0u);  // no backup to promote: the reconnect brings the QP back
  EXPECT_EQ(pair.side(0).connection->stats().reconnects_done, 1u);
  RecordProperty("stall_ns", std::to_string(s.last_failover_gap.picoseconds() / 1000));
  EXPECT_GE(s.last_failover_gap, Time::ms(5));  // QpTransitionCosts::recover
  EXPECT_LT(s.last_failover_gap, Time::ms(5) + Time::us(100));
}

// The stall follows the device's modelled costs, whatever they are.
TEST_P(FailoverCost, TheStallFollowsTheDevicesCosts) {
  TransportPairConfig c = config(GetParam(), 2);
  c.device.qp_transitions.activate_ready = Time::us(300);
  TransportPair with_backup(c);
  const SenderStats slow_switch = fail_primary_path(with_backup, Time::us(30));
  EXPECT_GE(slow_switch.last_failover_gap, Time::us(300));
  EXPECT_LT(slow_switch.last_failover_gap, Time::us(340));

  c = config(GetParam(), 0);
  c.device.qp_transitions.recover = Time::ms(1);
  TransportPair without(c);
  const SenderStats fast_recovery = fail_primary_path(without, Time::us(30));
  EXPECT_GE(fast_recovery.last_failover_gap, Time::ms(1));
  EXPECT_LT(fast_recovery.last_failover_gap, Time::ms(1) + Time::us(100));
}

INSTANTIATE_TEST_SUITE_P(Modes, FailoverCost,
                         ::testing::Values(Reliability::hardware_rc, Reliability::software_uc),
                         testing::mode_name);

}  // namespace
}  // namespace bifrost::transport
