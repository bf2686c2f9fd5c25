// Late ACKs of WQEs declared lost, over UC: a queue, not a loss. Such an ACK is an exact RTT
// sample (every transmission has its own global number, A.1.1) and proof that the QP that
// carried the WQE delivers, so it keeps the QP from being given up as dead; and the sender
// counts the verdicts it refutes (spurious timeouts, failovers of live paths).
#include <gtest/gtest.h>

#include <memory>
#include <optional>

#include "transport_pair.h"

namespace bifrost::transport {
namespace {

using testing::is_uc_send;
using testing::lossless_paper_hint;
using testing::TransportPair;
using testing::TransportPairConfig;

struct Outcome {
  SenderStats sender;
  Time srtt;
};

// A first SEND for an RTT sample (so the RTO is the 500 us floor); then `disturb(pair)` sets
// up the wire and `sends` SENDs of 100 bytes go. Returns the sender's state once all arrived.
template <typename Disturb>
Outcome after_a_first_sample(const TransportPairConfig& c, int sends, Disturb disturb) {
  TransportPair pair(c);
  pair.send(0, 100);
  EXPECT_TRUE(pair.run_until_done(Time::ms(5)));
  disturb(pair);
  for (int i = 0; i < sends; ++i) pair.send(0, 100);
  EXPECT_TRUE(pair.run_until_done(Time::ms(50)));
  EXPECT_TRUE(pair.all_delivered_once());
  const Connection& sender = *pair.side(0).connection;
  return Outcome{.sender = sender.sender_stats(), .srtt = sender.rtt().srtt()};
}

// The receiver's ACKs wait `delay` (its port paused: a queue on the way back).
auto acks_wait(Time delay) {
  return [delay](TransportPair& pair) { pair.wire().pause(1, pair.kernel().now() + delay); };
}

// One SEND whose ACK waits 1.2 ms against the 500 us RTO: the timeout resends it, then the
// original's ACK and the copy's come back.
TEST(LateAck, TheLateAckOfAWqeDeclaredLostIsAnRttSample) {
  TransportPairConfig c = lossless_paper_hint();
  const Outcome with = after_a_first_sample(c, 1, acks_wait(Time::us(1200)));
  c.transport.rtt_from_late_acks = false;
  const Outcome without = after_a_first_sample(c, 1, acks_wait(Time::us(1200)));
  c.transport.rtt_from_late_acks = true;
  c.transport.tail_probe = false;
  const Outcome no_probe = after_a_first_sample(c, 1, acks_wait(Time::us(1200)));
  for (const Outcome* o : {&with, &without, &no_probe}) {
    EXPECT_EQ(o->sender.timeouts, 1u);
    EXPECT_EQ(o->sender.spurious_timeouts, 1u);
    EXPECT_EQ(o->sender.failovers, 0u);
  }
  // The original's ACK came after its timeout. The timeout's copy is the one-unit window's last
  // WQE, so it is hinted and arms the tail probe, which fires before the paused ACKs return:
  // the copy is declared lost too and its late ACK refutes a second verdict.
  for (const Outcome* o : {&with, &without}) {
    EXPECT_EQ(o->sender.tail_probes, 1u);
    EXPECT_EQ(o->sender.verdicts_refuted, 2u);
  }
  EXPECT_EQ(no_probe.sender.tail_probes, 0u);
  EXPECT_EQ(no_probe.sender.verdicts_refuted, 1u);
  // The original's ACK measured the whole 1.2 ms queue; without it only the copy's ~0.7 ms
  // sample (sent at the timeout) reached srtt.
  EXPECT_GT(with.sender.rtt_samples, without.sender.rtt_samples);
  EXPECT_GT(with.srtt, without.srtt);
}

// SEND A is lost (and every copy of it until the third timeout has fired); SEND B arrives but
// its ACK waits 1.2 ms. A's hole holds the cumulative part, so B's late ACK acknowledges
// nothing new and the backoff goes on (timeouts 1, 2, 3): B's ACK, between timeouts 1 and 2,
// showed the QP's path delivering. Counting silent timeouts only, the QP is kept; counting
// every timeout without new data, it was given up at the third.
TEST(LateAck, ALateAckBetweenTimeoutsKeepsTheQp) {
  const auto hole_and_late_ack = [](TransportPair& pair) {
    const Connection& sender = *pair.side(0).connection;
    auto sends = std::make_shared<int>(0);
    pair.wire().set_drop_filter(0, [&sender, sends](const world::Packet& p) {
      if (!is_uc_send(p)) return false;
      ++*sends;  // the first is A, the second B; then copies until the third timeout
      return *sends == 1 || (*sends > 2 && sender.sender_stats().timeouts < 3);
    });
    acks_wait(Time::us(1200))(pair);
  };
  TransportPairConfig c = lossless_paper_hint();
  const Outcome kept = after_a_first_sample(c, 2, hole_and_late_ack);
  c.transport.failover_needs_silence = false;
  const Outcome given_up = after_a_first_sample(c, 2, hole_and_late_ack);
  for (const Outcome* o : {&kept, &given_up}) {
    EXPECT_GE(o->sender.timeouts, 3u);
    EXPECT_GE(o->sender.spurious_timeouts, 1u);  // the first: B was not lost
  }
  EXPECT_EQ(kept.sender.failovers, 0u);
  EXPECT_EQ(given_up.sender.failovers, 1u);
}

// A dead path is silence: every SEND to the primary's peer QP is dropped for good. It still
// fails over at the third timeout, and the backup carries the SEND.
TEST(LateAck, ADeadPathStillFailsOverAtTheThirdTimeout) {
  const Outcome o = after_a_first_sample(lossless_paper_hint(), 1, [](TransportPair& pair) {
    auto dead = std::make_shared<std::optional<uint32_t>>();  // the first SEND names it
    pair.wire().set_drop_filter(0, [dead](const world::Packet& p) {
      if (!is_uc_send(p)) return false;
      if (!*dead) *dead = p.roce.bth.dest_qp;
      return p.roce.bth.dest_qp == **dead;
    });
  });
  EXPECT_EQ(o.sender.timeouts, 3u);
  EXPECT_EQ(o.sender.failovers, 1u);
  EXPECT_EQ(o.sender.failovers_refuted, 0u);
  EXPECT_EQ(o.sender.spurious_timeouts, 0u);
}

// ACKs that wait 4 ms: three timeouts (0.5, 1.5, 3.5 ms) hear nothing at all, which no rule can
// tell from a dead path, so the QP is given up; the original's ACK, arriving after, shows the
// path was alive (failovers_refuted).
TEST(LateAck, AFailoverOfAQueuedPathIsRefutedByItsLateAck) {
  const Outcome o = after_a_first_sample(lossless_paper_hint(), 1, acks_wait(Time::ms(4)));
  EXPECT_EQ(o.sender.timeouts, 3u);
  EXPECT_EQ(o.sender.failovers, 1u);
  EXPECT_EQ(o.sender.failovers_refuted, 1u);
}

}  // namespace
}  // namespace bifrost::transport
