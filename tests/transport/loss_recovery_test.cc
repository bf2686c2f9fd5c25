// The sender's loss recovery over UC, end to end: a retransmission timeout resends only what
// it presumes lost (selective, not go-back-all), and a lost software ACK is covered by the
// cumulative part of a later one instead of being taken for lost data.
#include <gtest/gtest.h>

#include "bifrost/core/rng.h"
#include "transport_pair.h"

namespace bifrost::transport {
namespace {

using testing::is_uc_send;
using testing::lossless_paper_hint;
using testing::TransportPair;
using testing::TransportPairConfig;

bool is_ack(const world::Packet& p) {
  return p.roce.bth.opcode == wire::Opcode::kUdSendOnly;
}

// A lost SEND A is the only WQE out until, just before its timeout, B and C leave. Go-back-all
// would resend all three; the selective timeout resends A alone, and B and C are acknowledged.
TEST(LossRecovery, TimeoutResendsOnlyTheWqeOutForAWholeRto) {
  TransportPair pair(lossless_paper_hint());
  pair.send(0, 100);  // an RTT sample first, so the RTO is the 500 us floor
  ASSERT_TRUE(pair.run_until_done(Time::ms(5)));
  const Connection& sender = *pair.side(0).connection;
  ASSERT_EQ(sender.rtt().rto(sender.config().min_rto), Time::us(500));

  bool dropped = false;
  pair.wire().set_drop_filter(0, [&dropped](const world::Packet& p) {
    if (dropped || !is_uc_send(p)) return false;
    dropped = true;
    return true;
  });
  sim::EventKernel& kernel = pair.kernel();
  const Time start = kernel.now();
  pair.send(0, 100);  // A: lost; the RTO clock starts with it
  // B and C leave 1 us before A's timeout: their ACK cannot be back in time.
  kernel.at(start + Time::us(499), [&pair] {
    pair.send(0, 100);
    pair.send(0, 100);
  });
  ASSERT_TRUE(pair.run_until_done(Time::ms(10)));
  EXPECT_TRUE(dropped);
  EXPECT_TRUE(pair.all_delivered_once());
  const SenderStats& s = sender.sender_stats();
  EXPECT_EQ(s.timeouts, 1u);
  EXPECT_EQ(s.retransmitted_wqes, 1u);  // A only
  EXPECT_EQ(s.timeout_spared, 2u);      // B and C: go-back-all's extra resends
  EXPECT_EQ(s.losses_detected, 0u);
  EXPECT_EQ(pair.side(1).connection->receiver_stats().duplicates, 0u);
}

// Two WQEs lost in a row, the second leaving just before the first times out: the timeout
// resends the first, and the ACK of that resend (a newer global number) reveals the second by
// the in-order rule well before another timeout would.
TEST(LossRecovery, TheResendsAckRevealsAYoungLossWithoutASecondTimeout) {
  TransportPair pair(lossless_paper_hint());
  pair.send(0, 100);
  ASSERT_TRUE(pair.run_until_done(Time::ms(5)));
  int sends = 0;
  pair.wire().set_drop_filter(0, [&sends](const world::Packet& p) {
    return is_uc_send(p) && ++sends <= 2;  // A and B
  });
  sim::EventKernel& kernel = pair.kernel();
  const Time start = kernel.now();
  pair.send(0, 100);
  kernel.at(start + Time::us(499), [&pair] { pair.send(0, 100); });
  ASSERT_TRUE(pair.run_until_done(Time::ms(10)));
  EXPECT_TRUE(pair.all_delivered_once());
  const SenderStats& s = pair.side(0).connection->sender_stats();
  EXPECT_EQ(s.timeouts, 1u);
  EXPECT_EQ(s.timeout_spared, 1u);
  EXPECT_EQ(s.losses_detected, 1u);  // B, by the ACK of A's resend
  EXPECT_EQ(s.retransmitted_wqes, 2u);
  EXPECT_LT(kernel.now(), start + Time::ms(1));  // no backed-off second timeout (1 ms)
}

// Nothing is lost, but the sender's NIC sends slowly (its QP paced at 200 Mb/s: a 64 KiB chunk
// takes 2.6 ms to leave), so the chunks of one 256 KiB message wait in the NIC for up to 10 ms,
// far longer than the 500 us RTO. That wait is the sender's own queueing, which no RTT sample
// contains: the RTO runs from when a WQE left the NIC, so nothing times out. (It ran from
// posting: the queued chunks timed out and were resent.)
TEST(LossRecovery, TimeInTheSendersNicQueueIsNotTakenForLoss) {
  TransportPairConfig c = lossless_paper_hint();
  c.transport.cc.kind = CcKind::none;  // the whole message goes to the NIC at once
  TransportPair pair(c);
  pair.send(0, 100);  // an RTT sample first, so the RTO is the 500 us floor
  ASSERT_TRUE(pair.run_until_done(Time::ms(5)));
  Connection& sender = *pair.side(0).connection;
  ASSERT_EQ(sender.rtt().rto(sender.config().min_rto), Time::us(500));
  pair.sim().side(0).device->set_rate_limit(sender.primary(), Rate::Mbps(200));
  pair.send(0, 256 * 1024);
  ASSERT_TRUE(pair.run_until_done(Time::ms(50)));
  EXPECT_TRUE(pair.all_delivered_once());
  const SenderStats& s = sender.sender_stats();
  EXPECT_GT(s.chunks, 3u);  // several chunks queued behind each other
  EXPECT_EQ(s.timeouts, 0u);
  EXPECT_EQ(s.retransmitted_wqes, 0u);
  EXPECT_EQ(pair.side(1).connection->receiver_stats().duplicates, 0u);
}

// Fig. 7's setup in small (bifrost-loss-throughput): 25 Gb/s, a 6 us round trip taken as the
// base RTT, MTU 1024 and 16 KiB SENDs, so Swift's window (two BDPs, 37.5 KB) holds two.
TransportPairConfig two_sends_window(bool hint_last_two) {
  TransportPairConfig c;
  c.wire.rate = Rate::Gbps(25);
  c.wire.delay = Time::us(3);
  c.transport.mtu = 1024;
  c.transport.line_rate_bps = 25'000'000'000;
  c.transport.base_rtt = Time::us(6);
  c.transport.hint_last_two = hint_last_two;
  return c;
}

// A loss cuts the window below the bytes in flight (the paper's to one unit): the WQEs behind
// the lost one were sent into the old window, so none is hinted, and the resend waits for them
// to be acknowledged. The receiver acknowledges each at once, as it arrives above the hole
// (A.1.1's out-of-order trigger), so they complete and the resend leaves within a few round
// trips. (Only the first past the hole was: the rest waited for the 120 us ACK timer, which cost
// the `paper` rows of bifrost-loss-throughput 21-30% at 1-4 KB and 1/1024 loss.) Fig. 7's
// setup with eight 4 KiB SENDs, the second (message 9) lost; both configurations, with and
// without hint_last_two.
TEST(LossRecovery, TheWqesInFlightAboveAHoleAreAcknowledgedAtOnce) {
  for (const bool paper : {true, false}) {
    for (const bool hint_last_two : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "paper " << paper << " hint_last_two " << hint_last_two);
      TransportPairConfig c = two_sends_window(hint_last_two);
      if (paper) {
        c.transport = TransportConfig::paper();  // base RTT 50 us: the eight are far below it
        c.transport.mtu = 1024;
        c.transport.line_rate_bps = 25'000'000'000;
        c.transport.hint_last_two = hint_last_two;
      }
      TransportPair pair(c);
      for (int i = 0; i < 8; ++i) pair.send(0, 4096 - 64);
      ASSERT_TRUE(pair.run_until_done(Time::ms(5)));
      int sends = 0;
      pair.wire().set_drop_filter(0, [&sends](const world::Packet& p) {
        return p.roce.bth.opcode == wire::Opcode::kUcSendFirst && ++sends == 2;
      });
      const ReceiverStats& r = pair.side(1).connection->receiver_stats();
      const uint64_t timer_acks = r.ack_triggers[AckTrigger::timer];
      const Time start = pair.kernel().now();
      for (int i = 0; i < 8; ++i) pair.send(0, 4096 - 64);
      pair.kernel().run_until(start + Time::us(60));  // lossless: ~20 us; the ACK timer: 120 us
      for (size_t i = 8; i < 16; ++i) {
        if (i != 9) {
          EXPECT_TRUE(pair.side(0).sent[i].completed) << i;
        }
      }
      EXPECT_EQ(r.ack_triggers[AckTrigger::timer], timer_acks);
      const SenderStats& s = pair.side(0).connection->sender_stats();
      EXPECT_EQ(s.losses_detected, 1u);
      EXPECT_EQ(s.retransmitted_wqes, 1u);  // already out
      // The resend is the burst's tail: `paper` hints it only if it fills the window (A.1.2),
      // and the window has grown back by then, so its ACK may wait for the timer.
      ASSERT_TRUE(pair.run_until_done(Time::ms(5)));
      EXPECT_TRUE(pair.all_delivered_once());
    }
  }
}

// 40 SENDs of 16 KiB queued at once, the `lost`-th lost; what found it.
SenderStats lose_one_of_a_queue_of_sends(const TransportPairConfig& c, int lost) {
  TransportPair pair(c);
  int sends = 0;
  pair.wire().set_drop_filter(0, [&sends, lost](const world::Packet& p) {
    // A UC SEND is lost whole with any of its 16 packets: drop the first of the lost one's.
    return p.roce.bth.opcode == wire::Opcode::kUcSendFirst && ++sends == lost;
  });
  for (int i = 0; i < 40; ++i) pair.send(0, 16 * 1024 - 64);
  EXPECT_TRUE(pair.run_until_done(Time::ms(20)));
  EXPECT_TRUE(pair.all_delivered_once());
  return pair.side(0).connection->sender_stats();
}

// The window's last WQE is hinted although the next queued SEND is 16 KiB, not the one unit
// the window check took: a lost last SEND is then found by the tail probe armed at its
// completion. (Taken for one unit, the window seemed to have room, the WQE went unhinted, no
// probe was armed and only the 500 us RTO found it: 1.8 Gb/s of 25 at 1% loss.)
TEST(LossRecovery, TheLastSendTheWindowAllowsIsHintedWhateverTheNextOnesSize) {
  for (const int lost : {5, 12, 21}) {
    SCOPED_TRACE(lost);
    const SenderStats s = lose_one_of_a_queue_of_sends(two_sends_window(false), lost);
    EXPECT_EQ(s.timeouts, 0u);
    EXPECT_EQ(s.retransmitted_wqes, 1u);
  }
}

// The last SEND of the queue is lost: nothing after it reveals the hole. The product's tail
// probe resends it ~2 srtt after it left; the paper's sender (tail_probe = false, as in
// paper()) has no probe and waits for the RTO.
TEST(LossRecovery, WithoutTheTailProbeALostTailWaitsForTheRto) {
  for (const bool probe : {true, false}) {
    SCOPED_TRACE(probe);
    TransportPairConfig c = two_sends_window(false);
    c.transport.tail_probe = probe;
    const SenderStats s = lose_one_of_a_queue_of_sends(c, 40);
    EXPECT_EQ(s.tail_probes, probe ? 1u : 0u);
    EXPECT_EQ(s.timeouts, probe ? 0u : 1u);
    EXPECT_EQ(s.retransmitted_wqes, 1u);
  }
}

// paper() at Fig. 7's setup (25 Gb/s, MTU 1024, 16 KB SENDs) under 1% random packet loss: every
// loss is found by an ACK hole or by the RTO, never by a tail probe (the paper has none), and
// everything still arrives exactly once. (With tail_probe on, this run fires 39 probes.)
TEST(LossRecovery, ThePapersConfigurationNeverProbesATail) {
  TransportPairConfig c = two_sends_window(false);
  c.transport = TransportConfig::paper();
  c.transport.mtu = 1024;
  c.transport.line_rate_bps = 25'000'000'000;
  TransportPair pair(c);
  RandomStream loss(7, "paper-random-loss");
  pair.wire().set_drop_filter(0, [&loss](const world::Packet&) { return loss.bernoulli(0.01); });
  for (int i = 0; i < 400; ++i) pair.send(0, 16 * 1024 - 64);
  ASSERT_TRUE(pair.run_until_done(Time::ms(200)));
  EXPECT_TRUE(pair.all_delivered_once());
  const SenderStats& s = pair.side(0).connection->sender_stats();
  EXPECT_GT(s.retransmitted_wqes, 0u);
  EXPECT_EQ(s.tail_probes, 0u);
}

// hint_last_two: the WQE before the window's last is hinted too, so its ACK comes at once and
// the next SEND goes while the last is still on the wire; with the last alone hinted, the pair
// is acknowledged together and the wire idles for a round trip per pair (Fig. 7's 16 KiB point
// lossless: 15.2 -> 22.5 Gb/s of 25). 100 SENDs of 16 KiB take ~560 us at line rate.
TEST(LossRecovery, WithTheLastTwoHintedAWindowOfTwoSendsKeepsTheWireBusy) {
  for (const bool hint_last_two : {false, true}) {
    SCOPED_TRACE(hint_last_two);
    TransportPair pair(two_sends_window(hint_last_two));
    for (int i = 0; i < 100; ++i) pair.send(0, 16 * 1024 - 64);
    const Time start = pair.kernel().now();
    ASSERT_TRUE(pair.run_until_done(Time::ms(20)));  // looks every 100 us
    EXPECT_TRUE(pair.all_delivered_once());
    const ReceiverStats& r = pair.side(1).connection->receiver_stats();
    if (hint_last_two) {
      EXPECT_LE(pair.kernel().now() - start, Time::us(700));
      EXPECT_EQ(r.ack_triggers[AckTrigger::hint], 100u);  // each SEND acknowledged at once
    } else {
      EXPECT_GE(pair.kernel().now() - start, Time::us(900));
    }
  }
}

// Two 16 KiB SENDs fill the window and both are lost, and so is the tail probe's copy of the
// second. The timeout finds the first out for an RTO but spares the copy, whose data left ~6 us
// later, and leaves a one-unit window. The copy held that window, so the first's resend waited
// for the next, backed-off timeout, 1 ms later (bifrost-loss-throughput, 16 KB at 1% loss: 1.5
// ms per such event). Now the timeout's first resend goes at once and its ACK reveals the copy.
TEST(LossRecovery, ATimeoutsResendIsNotHeldBackByTheWqesItSpared) {
  TransportPair pair(two_sends_window(true));
  // A clean run first: the loss gate then takes the first losses for corruption, so the probe
  // does not cut the window (the timeout does).
  for (int i = 0; i < 64; ++i) pair.send(0, 16 * 1024 - 64);
  ASSERT_TRUE(pair.run_until_done(Time::ms(5)));
  int sends = 0;
  pair.wire().set_drop_filter(0, [&sends](const world::Packet& p) {
    return p.roce.bth.opcode == wire::Opcode::kUcSendFirst && ++sends <= 3;
  });
  const Time start = pair.kernel().now();
  pair.send(0, 16 * 1024 - 64);
  pair.send(0, 16 * 1024 - 64);
  ASSERT_TRUE(pair.run_until_done(Time::ms(10)));  // looks every 100 us
  EXPECT_TRUE(pair.all_delivered_once());
  const SenderStats& s = pair.side(0).connection->sender_stats();
  EXPECT_EQ(s.tail_probes, 1u);
  EXPECT_EQ(s.timeouts, 1u);
  EXPECT_EQ(s.timeout_spared, 1u);  // the probe's copy
  EXPECT_LE(pair.kernel().now() - start, Time::us(700));
}

// Lone RPCs on a 4 us round trip: every lost request is a tail. With tail_probe_learns, once a
// probe proved needed (its copy's ACK came and the original's never did), the probe waits 2
// srtt + the receiver's delay in acknowledging a hinted WQE as the ACKs report it, not max(2
// srtt + the 120 us ACK timer, 125 us), and a lost copy is probed again after twice the delay
// instead of waiting for the 500 us RTO. (Fig. 7's setup at depth 1, 4 KB at 1% loss: 0.50 ->
// 0.90 of lossless.)
TEST(LossRecovery, ALearningTailProbeIsQuickAndProbesALostCopyAgain) {
  for (const bool learns : {false, true}) {
    SCOPED_TRACE(learns);
    TransportPairConfig c;
    c.wire.delay = Time::us(2);
    c.transport.tail_probe_learns = learns;
    TransportPair pair(c);
    pair.send(0, 100);  // an RTT sample (and an ACK delay) first
    ASSERT_TRUE(pair.run_until_done(Time::ms(5)));
    int drops = 0;  // how many of the next SENDs are lost
    pair.wire().set_drop_filter(0, [&drops](const world::Packet& p) {
      if (!is_uc_send(p) || drops == 0) return false;
      --drops;
      return true;
    });
    sim::EventKernel& kernel = pair.kernel();
    const ReceiverStats& r = pair.side(1).connection->receiver_stats();
    // The first request is lost once: the probe (after the fixed delay) resends it, and its
    // copy's ACK shows the probe was needed.
    drops = 1;
    pair.send(0, 100);
    ASSERT_TRUE(pair.run_until_done(Time::ms(5)));
    // The second is lost once: found within 60 us only when learning.
    drops = 1;
    pair.send(0, 100);
    kernel.run_until(kernel.now() + Time::us(60));
    EXPECT_EQ(r.messages_delivered, learns ? 3u : 2u);
    ASSERT_TRUE(pair.run_until_done(Time::ms(5)));
    // The third is lost, and so is the probe's copy.
    drops = 2;
    pair.send(0, 100);
    ASSERT_TRUE(pair.run_until_done(Time::ms(10)));
    EXPECT_TRUE(pair.all_delivered_once());
    const SenderStats& s = pair.side(0).connection->sender_stats();
    EXPECT_EQ(s.tail_probes, learns ? 4u : 3u);
    EXPECT_EQ(s.timeouts, learns ? 0u : 1u);
  }
}

// Fig. 7's setup in small at 2% random loss: a 16 KiB SEND (17 packets) is lost whole 29% of
// the time and goes again whole. With send_threshold_follows_loss, once losses are seen, a
// message above twice the chunk cap's loss budget (5 packets at 2%) goes as WRITE
// chunks instead; without losses nothing changes. (bifrost-loss-throughput: 16 KB at 1% 0.70
// -> 0.97 of lossless.)
TEST(LossRecovery, WhileLossesAreSeenALargeSendGoesAsChunks) {
  for (const double loss : {0.0, 0.02}) {
    for (const bool follows : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "loss " << loss << " follows " << follows);
      TransportPairConfig c = two_sends_window(true);
      c.transport.send_threshold_follows_loss = follows;
      TransportPair pair(c);
      RandomStream random(1, "data-loss");
      pair.wire().set_drop_filter(0, [&random, loss](const world::Packet& p) {
        return !is_ack(p) && random.bernoulli(loss);
      });
      for (int round = 0; round < 40; ++round) {  // 8 outstanding at a time, as at depth 8
        for (int i = 0; i < 8; ++i) pair.send(0, 16 * 1024 - 64);
        ASSERT_TRUE(pair.run_until_done(Time::ms(20)));
      }
      EXPECT_TRUE(pair.all_delivered_once());
      const SenderStats& s = pair.side(0).connection->sender_stats();
      if (follows && loss > 0) {
        EXPECT_GT(s.chunks, 500u);  // most of the 312 later messages, as 4 KiB chunks
      } else {
        EXPECT_EQ(s.chunks, 0u);
      }
    }
  }
}

struct AckLossOutcome {
  uint64_t acks_dropped = 0;
  SenderStats sender;
  ReceiverStats receiver;
};

// One side sends small and large messages to the other over a lossless data path while `every`
// n-th software ACK of the receiver is dropped (10% at n = 10).
AckLossOutcome run_with_ack_loss(bool hint_when_idle, uint64_t seed) {
  TransportPairConfig c = lossless_paper_hint();
  c.transport.hint_when_idle = hint_when_idle;
  TransportPair pair(c);
  AckLossOutcome out;
  RandomStream random(seed, "ack-loss");
  pair.wire().set_drop_filter(1, [&out, &random](const world::Packet& p) {
    if (!is_ack(p) || !random.bernoulli(0.1)) return false;
    ++out.acks_dropped;
    return true;
  });
  for (int i = 0; i < 200; ++i) pair.send(0, i % 5 == 0 ? 300000 : 100 + 37 * i);
  EXPECT_TRUE(pair.run_until_done(Time::ms(200)));
  EXPECT_TRUE(pair.all_delivered_once());
  out.sender = pair.side(0).connection->sender_stats();
  out.receiver = pair.side(1).connection->receiver_stats();
  return out;
}

// 10% of the ACKs lost and no data: nothing is resent because an ACK went missing, except what
// a timer must resend when the last ACKs of the run are the lost ones (nothing later covers
// them). Without the cumulative part every lost ACK made the next one declare its WQEs lost.
TEST(LossRecovery, LostAcksCauseNoResendsBeyondTheTimers) {
  for (const bool hint_when_idle : {false, true}) {
    for (const uint64_t seed : {1u, 2u, 3u}) {
      SCOPED_TRACE(::testing::Message() << "hint_when_idle " << hint_when_idle << " seed " << seed);
      const AckLossOutcome out = run_with_ack_loss(hint_when_idle, seed);
      EXPECT_GT(out.acks_dropped, 5u);
      EXPECT_GT(out.sender.cumulative_acked, 0u);
      EXPECT_EQ(out.sender.losses_detected, 0u);  // the in-order rule found nothing lost
      if (out.sender.timeouts + out.sender.tail_probes == 0) {
        EXPECT_EQ(out.sender.retransmitted_wqes, 0u);
      }
      // Whatever a timer resent arrived twice; nothing else did.
      EXPECT_EQ(out.receiver.duplicates + out.receiver.late_pieces, out.sender.retransmitted_wqes);
    }
  }
}

// A long queue on the return path: the receiver's ACKs wait 1.2 ms (its port paused), far
// beyond 2 srtt of the 4 us round trip the first RPC measured, and one RPC is outstanding. The
// tail probe fires once; until an ACK acknowledges new data only the RTO (backed off) resends.
// Then the next RPC's tail may be probed again. (Before: a probe every ~125 us while the ACKs
// waited, each declaring the last copy lost so that its late ACK was stale and gave no RTT
// sample: srtt never learned the queue, and the resends grew with the queue's length. Fig. 9's
// incast, bifrost-incast, livelocked on it.)
TEST(LossRecovery, OneTailProbeUntilNewDataIsAcknowledged) {
  TransportPairConfig c;
  c.wire.delay = Time::us(2);  // hint_when_idle (the default): a lone RPC's tail is probed
  TransportPair pair(c);
  pair.send(0, 100);  // an RTT sample first: the probe is armed only with one
  ASSERT_TRUE(pair.run_until_done(Time::ms(5)));
  const Connection& sender = *pair.side(0).connection;
  ASSERT_LT(sender.rtt().srtt(), Time::us(10));
  sim::EventKernel& kernel = pair.kernel();
  for (int rpc = 1; rpc <= 2; ++rpc) {
    SCOPED_TRACE(::testing::Message() << "delayed RPC " << rpc);
    pair.wire().pause(1, kernel.now() + Time::us(1200));  // the receiver's ACKs wait 1.2 ms
    pair.send(0, 100);
    ASSERT_TRUE(pair.run_until_done(Time::ms(20)));
    EXPECT_TRUE(pair.all_delivered_once());
    const SenderStats& s = sender.sender_stats();
    EXPECT_EQ(s.tail_probes, static_cast<uint64_t>(rpc));  // one per delayed tail
    // The first RPC times out at the 500 us floor; the late ACKs of its original and of the
    // probe's copy are RTT samples of the 1.2 ms queue (rtt_from_late_acks), so the second
    // RPC's RTO is above it: only its probe resends.
    EXPECT_EQ(s.timeouts, 1u);
    EXPECT_EQ(s.retransmitted_wqes, rpc == 1 ? 2u : 3u);  // the probe's and the RTO's copies
    EXPECT_EQ(s.failovers, 0u);
  }
}

}  // namespace
}  // namespace bifrost::transport
