// A Bifröst connection end to end on two soft RNICs: small and large messages, both modes,
// scripted losses, and each ACK trigger.
#include <gtest/gtest.h>

#include "bifrost/core/error.h"

#include "transport_pair.h"

namespace bifrost::transport {
namespace {

using testing::TransportPair;
using testing::TransportPairConfig;

TransportPairConfig lossless() {
  TransportPairConfig c;
  c.wire.delay = Time::us(2);
  return c;
}

TEST(Connection, SmallAndLargeMessagesBothWays) {
  TransportPair pair(lossless());
  for (const uint64_t size : {8u, 100u, 4096u, 32768u, 32769u, 100000u, 1u << 20, 4u << 20}) {
    pair.send(0, size);
    pair.send(1, size);
  }
  ASSERT_TRUE(pair.run_until_done(Time::ms(50)));
  EXPECT_TRUE(pair.all_delivered_once());
  const SenderStats& s = pair.side(0).connection->sender_stats();
  EXPECT_EQ(s.messages_sent, 8u);
  EXPECT_EQ(s.retransmitted_wqes, 0u);
  EXPECT_GT(s.chunks, 0u);
  EXPECT_GT(s.rtt_samples, 0u);
  EXPECT_TRUE(pair.side(0).connection->idle());
  EXPECT_TRUE(pair.side(1).connection->idle());
}

// More large messages outstanding at once than the sender has staging slots (256): each
// write request holds a slot until its grant comes, and the grants of 256 KB messages also wait
// for arena space (16 MB), so WRITE chunks must go while requests wait for slots. This stalled
// with 257 messages before.
TEST(Connection, MoreLargeMessagesOutstandingThanStagingSlots) {
  for (const uint64_t size : {uint64_t{65536}, uint64_t{262144}}) {
    TransportPair pair(lossless());
    for (int i = 0; i < 300; ++i) pair.send(0, size);
    ASSERT_TRUE(pair.run_until_done(Time::ms(100))) << size;
    EXPECT_TRUE(pair.all_delivered_once()) << size;
    EXPECT_EQ(pair.side(0).connection->sender_stats().retransmitted_wqes, 0u) << size;
    if (size > 65536) {
      EXPECT_GT(pair.side(1).connection->receiver_stats().grants_deferred, 0u);
    }
  }
}

TEST(Connection, AcksOnTheDataQpTravelAsSendsThere) {
  TransportPairConfig c = lossless();
  c.transport.ack_path = AckPath::data_qp;
  TransportPair pair(c);
  int ud_packets = 0;
  for (int side = 0; side < 2; ++side) {
    pair.wire().set_drop_filter(side, [&ud_packets](const world::Packet& p) {
      ud_packets += p.roce.bth.opcode == wire::Opcode::kUdSendOnly ? 1 : 0;
      return false;
    });
  }
  for (int i = 0; i < 20; ++i) pair.send(i % 2, i % 4 == 0 ? 200000 : 1000);
  ASSERT_TRUE(pair.run_until_done(Time::ms(50)));
  EXPECT_TRUE(pair.all_delivered_once());
  for (int s = 0; s < 2; ++s) {
    const Connection& conn = *pair.side(s).connection;
    EXPECT_GT(conn.receiver_stats().acks_sent, 0u);
    EXPECT_EQ(conn.sender_stats().acks_received,
              pair.side(1 - s).connection->receiver_stats().acks_sent);
    EXPECT_EQ(conn.receiver_stats().malformed, 0u);
    EXPECT_EQ(conn.sender_stats().retransmitted_wqes, 0u);
  }
  EXPECT_EQ(ud_packets, 0);  // nothing went over the UD QPs
}

TEST(Connection, RejectsEmptyAndOversizedMessages) {
  TransportPair pair(lossless());
  TransportPair::Side& a = pair.side(0);
  const uint64_t too_big = a.connection->config().max_message_size() + 1;
  EXPECT_THROW(a.connection->send(MessageBuffer{a.app_region, TransportPair::kAppBase, 0}), Error);
  EXPECT_THROW(a.connection->send(MessageBuffer{a.app_region, TransportPair::kAppBase, too_big}),
               Error);
  EXPECT_THROW(a.connection->send(MessageBuffer{nullptr, TransportPair::kAppBase, 10}), Error);
}

TEST(Connection, RttSampleIsTheWirePathNotTheAckDelay) {
  TransportPairConfig c = lossless();
  c.wire.delay = Time::us(10);
  c.transport.hint_when_idle = false;  // A.1.2's hint: a lone WQE waits for the ACK timer
  TransportPair pair(c);
  pair.send(0, 64);  // one small message: only the 120 us ACK timer acknowledges it
  ASSERT_TRUE(pair.run_until_done(Time::ms(5)));
  const RttEstimator& rtt = pair.side(0).connection->rtt();
  ASSERT_EQ(rtt.samples(), 1u);
  // Two propagation delays plus serialization of a ~100-byte frame each way; the 120 us the
  // receiver held the ACK is subtracted by eq. (1).
  EXPECT_GE(rtt.latest(), Time::us(20));
  EXPECT_LT(rtt.latest(), Time::us(21));
  EXPECT_EQ(pair.side(1).connection->receiver_stats().ack_triggers[AckTrigger::timer], 1u);
}

TEST(Connection, EachAckTriggerFires) {
  TransportPair pair(lossless());
  // 40 tiny messages posted at once: 32 WQEs fill an ACK.
  for (int i = 0; i < 40; ++i) pair.send(0, 16);
  // Then two 20 KB messages: 32 KB of payload.
  pair.send(0, 20000);
  pair.send(0, 20000);
  ASSERT_TRUE(pair.run_until_done(Time::ms(5)));
  // A large message whose chunks exhaust a small window carries the hint bit.
  pair.send(0, 4u << 20);
  ASSERT_TRUE(pair.run_until_done(Time::ms(50)));
  // A lost SEND makes the next one out of order.
  bool dropped = false;
  pair.wire().set_drop_filter(0, [&dropped](const world::Packet& p) {
    if (dropped || p.roce.bth.opcode != wire::Opcode::kUcSendOnly) return false;
    dropped = true;
    return true;
  });
  pair.send(0, 100);
  pair.send(0, 100);
  ASSERT_TRUE(pair.run_until_done(Time::ms(20)));
  EXPECT_TRUE(dropped);
  // The last WQE of a burst carries the hint; when it is lost, nothing at the receiver asks for
  // an ACK soon, and the sender's tail probe resends the lost WQE alone after 2 srtt.
  int sends = 0;
  pair.wire().set_drop_filter(0, [&sends](const world::Packet& p) {
    return p.roce.bth.opcode == wire::Opcode::kUcSendOnly && ++sends == 2;
  });
  pair.send(0, 100);
  pair.send(0, 100);
  ASSERT_TRUE(pair.run_until_done(Time::ms(5)));
  EXPECT_EQ(sends, 3);  // the resend
  EXPECT_TRUE(pair.all_delivered_once());
  EXPECT_GE(pair.side(0).connection->sender_stats().tail_probes, 1u);
  const AckTriggerCounts& t = pair.side(1).connection->receiver_stats().ack_triggers;
  EXPECT_GT(t[AckTrigger::wqes], 0u);
  EXPECT_GT(t[AckTrigger::bytes], 0u);
  EXPECT_GT(t[AckTrigger::hint], 0u);
  EXPECT_GT(t[AckTrigger::out_of_order], 0u);
  EXPECT_GE(pair.side(0).connection->sender_stats().losses_detected, 1u);
  // With A.1.2's hint (only the last WQE the window allows) a lone message waits for the timer.
  TransportPairConfig paper = lossless();
  paper.transport.hint_when_idle = false;
  TransportPair quiet(paper);
  quiet.send(0, 100);
  ASSERT_TRUE(quiet.run_until_done(Time::ms(5)));
  EXPECT_EQ(quiet.side(1).connection->receiver_stats().ack_triggers[AckTrigger::timer], 1u);
}

TEST(Connection, LostWriteChunkIsResentAsPieces) {
  TransportPair pair(lossless());
  int writes = 0;
  pair.wire().set_drop_filter(0, [&writes](const world::Packet& p) {
    const auto op = p.roce.bth.opcode;
    const bool write = op == wire::Opcode::kUcWriteFirst || op == wire::Opcode::kUcWriteMiddle ||
                       op == wire::Opcode::kUcWriteLastImm || op == wire::Opcode::kUcWriteOnlyImm;
    return write && ++writes == 3;  // a packet inside the first chunk
  });
  pair.send(0, 1u << 20);
  ASSERT_TRUE(pair.run_until_done(Time::ms(20)));
  EXPECT_TRUE(pair.all_delivered_once());
  const ReceiverStats& r = pair.side(1).connection->receiver_stats();
  EXPECT_GT(r.pieces_placed, 0u);
  EXPECT_EQ(pair.side(0).connection->sender_stats().timeouts, 0u);  // found by the gap
}

// Under steady random loss the chunks shrink to the loss budget, so fewer bytes go again as
// pieces; with the budget 0 they stay at max_chunk. No CC, so the window does not shrink them.
TEST(Connection, ChunksShrinkUnderRandomLossAndFewerBytesGoAgain) {
  struct Outcome {
    uint64_t chunks = 0;
    uint64_t retransmitted = 0;
  };
  const auto run = [](double budget) {
    TransportPairConfig c = lossless();
    c.transport.cc.kind = CcKind::none;
    c.transport.chunk_loss_budget = budget;
    c.wire.loss = 0.01;
    c.wire.seed = 11;
    TransportPair pair(c);
    for (int i = 0; i < 32; ++i) pair.send(0, 1u << 20);
    EXPECT_TRUE(pair.run_until_done(Time::ms(500)));
    EXPECT_TRUE(pair.all_delivered_once());
    const SenderStats& s = pair.side(0).connection->sender_stats();
    return Outcome{s.chunks, s.retransmitted_wqes};
  };
  const Outcome blind = run(0);
  const Outcome aware = run(0.05);
  const uint64_t total = 32u << 20;
  EXPECT_LT(total / blind.chunks, 64u * 1024 + 1);
  EXPECT_GT(total / blind.chunks, 56u * 1024);  // nearly all at max_chunk
  EXPECT_LT(total / aware.chunks, 36u * 1024);  // near 5 packets once losses are seen
  // Each retransmitted WQE is one unit: a lost 64 KiB chunk costs 16, a 20 KiB one 5.
  EXPECT_LT(aware.retransmitted * 3, blind.retransmitted * 2);
}

TEST(Connection, AckLossIsRecoveredByTimeoutWithoutDoubleDelivery) {
  TransportPair pair(lossless());
  // Every ACK of the first 2 ms is lost: only the retransmission timer can recover.
  sim::EventKernel& kernel = pair.kernel();
  pair.wire().set_drop_filter(1, [&kernel](const world::Packet& p) {
    return p.roce.bth.opcode == wire::Opcode::kUdSendOnly && kernel.now() < Time::ms(2);
  });
  pair.send(0, 1000);
  pair.send(0, 200000);
  ASSERT_TRUE(pair.run_until_done(Time::ms(50)));
  EXPECT_TRUE(pair.all_delivered_once());
  EXPECT_GE(pair.side(0).connection->sender_stats().timeouts, 1u);
  EXPECT_GT(pair.side(1).connection->receiver_stats().duplicates +
                pair.side(1).connection->receiver_stats().late_pieces,
            0u);
}

TEST(Connection, HardwareRcModeDeliversWithoutSoftwareAcks) {
  TransportPairConfig c = lossless();
  c.transport.reliability = Reliability::hardware_rc;
  TransportPair pair(c);
  for (const uint64_t size : {64u, 32768u, 300000u}) pair.send(0, size);
  ASSERT_TRUE(pair.run_until_done(Time::ms(20)));
  EXPECT_TRUE(pair.all_delivered_once());
  EXPECT_EQ(pair.side(1).connection->receiver_stats().acks_sent, 0u);
  EXPECT_GT(pair.side(0).connection->sender_stats().rtt_samples, 0u);
}

// A.2.1: the receiver has the WQEs but their RC ACKs are lost until the retry count runs out.
// The sender fails over to a backup QP and sends everything not completed again; the receiver
// must suppress what it already had.
TEST(Connection, RcFailoverOnLostAcksDeliversExactlyOnce) {
  TransportPairConfig c = lossless();
  c.transport.reliability = Reliability::hardware_rc;
  c.transport.rc_timeout = 2;  // 16 us
  TransportPair pair(c);
  const uint32_t primary = pair.side(0).connection->qps()[0].qp->qp_num();
  sim::EventKernel& kernel = pair.kernel();
  pair.wire().set_drop_filter(1, [&kernel, primary](const world::Packet& p) {
    return p.roce.bth.opcode == wire::Opcode::kRcAcknowledge && p.roce.bth.dest_qp == primary &&
           kernel.now() > Time::us(30);
  });
  for (int i = 0; i < 40; ++i) pair.send(0, i % 4 == 0 ? 200000 : 3000);
  ASSERT_TRUE(pair.run_until_done(Time::ms(20)));
  EXPECT_TRUE(pair.all_delivered_once());
  const SenderStats& s = pair.side(0).connection->sender_stats();
  EXPECT_EQ(s.failovers, 1u);
  EXPECT_GT(pair.side(1).connection->receiver_stats().duplicates +
                pair.side(1).connection->receiver_stats().pieces_placed,
            0u);
  // Switching to the pre-connected backup costs its activation (~60 us) and about one round
  // trip, not a reconnect.
  RecordProperty("failover_gap_ns", std::to_string(s.last_failover_gap.picoseconds() / 1000));
  EXPECT_GT(s.last_failover_gap, Time::us(60));
  EXPECT_LT(s.last_failover_gap, Time::us(100));
  // The failed QP was replaced in the background by a fresh one on a new UDP source port, a
  // backup again once its recovery (~5 ms) is over.
  pair.kernel().run_until(pair.kernel().now() + Time::ms(6));
  const Path& replaced = pair.side(0).connection->qps()[0];
  EXPECT_EQ(pair.side(0).connection->stats().reconnects_done, 1u);
  EXPECT_EQ(pair.side(1).connection->stats().reconnects_accepted, 1u);
  EXPECT_EQ(replaced.role, PathRole::backup);
  EXPECT_NE(replaced.qp->qp_num(), primary);
  EXPECT_EQ(replaced.qp->state(), rnic::QpState::rts);
}

}  // namespace
}  // namespace bifrost::transport
