// The unreliable transports. UC: a message is delivered whole or not at all, never repaired,
// and a late or duplicated FIRST/ONLY starts a message again (no duplicate detection). UD:
// single-packet SENDs with a DETH, the Q_Key check, the GRH room at the start of every
// receive buffer and the sender's QPN in the completion.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <set>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/core/rng.h"
#include "data_path_support.h"
#include "support/property.h"

namespace bifrost::rnic {
namespace {

using namespace bifrost::rnic::testing;

constexpr uint64_t kSrc = NicPair::kBufferBase;
constexpr uint64_t kDst = NicPair::kBufferBase + (uint64_t{1} << 30);
constexpr uint64_t kSlot = 64 << 10;  // one message's source and one receive buffer

// Drops forward packets at random and remembers their PSNs, so the test knows exactly which
// messages lost a packet.
struct RecordingLoss {
  RandomStream random{1};
  double loss = 0;
  std::set<uint32_t> dropped;
};

NicPairConfig uc_config() {
  NicPairConfig c;
  c.type = QpType::uc;
  return c;
}

TEST(Uc, RandomLossDeliversWholeMessagesOrNothing) {
  size_t total_lost = 0;
  for (const uint64_t seed : bifrost::testing::property_seeds(10)) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    NicPairConfig c = uc_config();
    NicPair pair(c);
    auto loss = std::make_unique<RecordingLoss>();
    loss->random = RandomStream(seed, "uc_loss");
    loss->loss = 0.01 + 0.04 * loss->random.uniform();
    RecordingLoss* state = loss.get();
    pair.wire().set_drop_filter(0, [state](const world::Packet& p) {
      if (!state->random.bernoulli(state->loss)) return false;
      state->dropped.insert(p.roce.bth.psn);
      return true;
    });
    RandomStream random(seed, "uc_sizes");
    constexpr int kMessages = 60;
    std::vector<uint32_t> length(kMessages);
    std::vector<uint32_t> first_psn(kMessages);
    uint32_t psn = 0;
    for (int i = 0; i < kMessages; ++i) {
      length[i] = static_cast<uint32_t>(random.uniform_int(1, 5 * c.mtu));
      first_psn[i] = psn;
      psn += (length[i] + c.mtu - 1) / c.mtu;
      pair.a().memory->fill(kSrc + i * kSlot, length[i], static_cast<uint32_t>(seed * 100 + i));
      post_recv(pair.b(), 100 + i, kDst + i * kSlot, static_cast<uint32_t>(kSlot));
    }
    for (int i = 0; i < kMessages; ++i) {
      pair.a().qp->post_send(make_send(i, WrOpcode::send, pair.a(), kSrc + i * kSlot, length[i]));
    }
    pair.kernel().run();

    // A send completes for every message, lost or not, once it has left the NIC.
    const auto sent = pair.a().poll();
    ASSERT_EQ(sent.size(), size_t{kMessages});
    for (int i = 0; i < kMessages; ++i) {
      EXPECT_EQ(sent[i].wr_id, uint64_t(i));
      EXPECT_EQ(sent[i].status, WcStatus::success);
    }
    // Exactly the messages none of whose packets was dropped arrive, in order, whole, each in
    // the next posted receive; a lost message leaves its receive posted for the next one.
    std::vector<int> expected;
    for (int i = 0; i < kMessages; ++i) {
      const uint32_t end = i + 1 < kMessages ? first_psn[i + 1] : psn;
      const auto it = state->dropped.lower_bound(first_psn[i]);
      if (it == state->dropped.end() || *it >= end) expected.push_back(i);
    }
    const auto got = pair.b().poll();
    ASSERT_EQ(got.size(), expected.size()) << state->dropped.size() << " packets dropped";
    for (size_t j = 0; j < got.size(); ++j) {
      const int i = expected[j];
      SCOPED_TRACE(::testing::Message() << "receive " << j << ", message " << i);
      EXPECT_EQ(got[j].status, WcStatus::success);
      EXPECT_EQ(got[j].wr_id, 100 + j);
      EXPECT_EQ(got[j].byte_len, length[i]);
      EXPECT_TRUE(same_content(*pair.a().memory, kSrc + i * kSlot, *pair.b().memory,
                               kDst + j * kSlot, length[i]));
    }
    const size_t lost = kMessages - expected.size();
    EXPECT_EQ(pair.b().qp->responder()->posted(), lost);  // delivered + lost = sent
    EXPECT_EQ(lost == 0, state->dropped.empty());         // any dropped packet costs its message
    total_lost += lost;
    EXPECT_LE(pair.b().device->data_path_counters().rx_uc_messages_dropped, lost);
    EXPECT_EQ(pair.a().device->data_path_counters().tx_retransmitted, 0u);  // UC never repairs
    EXPECT_EQ(pair.b().device->data_path_counters().tx_acks, 0u);           // nor acknowledges
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(total_lost, 0u);  // the runs did lose messages
}

TEST(Uc, NextMessageAfterALossResynchronizes) {
  NicPairConfig c = uc_config();
  NicPair pair(c);
  // Three 4-packet messages; the second loses its second packet (PSN 5).
  pair.wire().set_drop_filter(0, [](const world::Packet& p) { return p.roce.bth.psn == 5; });
  for (int i = 0; i < 3; ++i) {
    pair.a().memory->fill(kSrc + i * kSlot, 4 * c.mtu, 40 + i);
    post_recv(pair.b(), 10 + i, kDst + i * kSlot, static_cast<uint32_t>(kSlot));
  }
  for (int i = 0; i < 3; ++i) {
    pair.a().qp->post_send(make_send(i, WrOpcode::send, pair.a(), kSrc + i * kSlot, 4 * c.mtu));
  }
  pair.kernel().run();
  EXPECT_EQ(pair.a().poll().size(), 3u);
  const auto got = pair.b().poll();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].wr_id, 10u);
  EXPECT_EQ(got[1].wr_id, 11u);  // message 2 took the receive message 1 left
  EXPECT_TRUE(same_content(*pair.a().memory, kSrc, *pair.b().memory, kDst, 4 * c.mtu));
  EXPECT_TRUE(
      same_content(*pair.a().memory, kSrc + 2 * kSlot, *pair.b().memory, kDst + kSlot, 4 * c.mtu));
  EXPECT_EQ(pair.b().qp->responder()->posted(), 1u);
  EXPECT_EQ(pair.b().device->data_path_counters().rx_uc_messages_dropped, 1u);
  // Out of sequence: PSN 6 and 7 (the rest of message 1) and PSN 8 (message 2's FIRST).
  EXPECT_EQ(pair.b().device->data_path_counters().rx_uc_out_of_sequence, 3u);
}

TEST(Uc, DuplicatedOnlyPacketIsPlacedAgain) {
  NicPairConfig c = uc_config();
  c.wire.duplicate = 0.3;
  c.wire.seed = 5;
  NicPair pair(c);
  constexpr int kMessages = 40;
  for (int i = 0; i < kMessages; ++i) {
    pair.a().memory->fill(kSrc + i * kSlot, 500, 60 + i);
  }
  for (int j = 0; j < 2 * kMessages; ++j) {
    post_recv(pair.b(), j, kDst + j * kSlot, 500);
  }
  for (int i = 0; i < kMessages; ++i) {
    pair.a().qp->post_send(make_send(i, WrOpcode::send, pair.a(), kSrc + i * kSlot, 500));
  }
  pair.kernel().run();
  const uint64_t duplicated = pair.wire().counters(0).duplicated;
  ASSERT_GT(duplicated, 0u);
  const auto got = pair.b().poll();
  // No duplicate detection in UC: every copy consumes a receive.
  ASSERT_EQ(got.size(), kMessages + duplicated);
  int message = 0;
  std::vector<int> copies(kMessages, 0);
  for (size_t j = 0; j < got.size(); ++j) {
    EXPECT_EQ(got[j].byte_len, 500u);
    // Copies arrive together: receive j holds the current message again or the next one.
    const auto holds = [&](int i) {
      return i < kMessages && same_content(*pair.a().memory, kSrc + i * kSlot, *pair.b().memory,
                                           kDst + j * kSlot, 500);
    };
    if (j > 0 && holds(message)) {
      ++copies[message];
    } else if (holds(j == 0 ? 0 : message + 1)) {
      message = j == 0 ? 0 : message + 1;
      ++copies[message];
    } else {
      ADD_FAILURE() << "receive " << j << " holds neither message " << message << " nor the next";
      break;
    }
  }
  EXPECT_EQ(message, kMessages - 1);
  for (int i = 0; i < kMessages; ++i) EXPECT_GE(copies[i], 1) << "message " << i;
}

// Receive completions flag a CE mark on the message's packets (a soft-RNIC extension the
// Bifröst transport echoes for its software DCQCN). One packet per message: the flags count
// exactly the packets the wire marked, and packets that are not ECN-capable are never marked.
uint64_t ce_flagged(bool ecn_capable, uint64_t& marked) {
  NicPairConfig c = uc_config();
  c.wire.ce_mark = 0.5;
  c.wire.seed = 11;
  c.device.data_path.ecn_capable = ecn_capable;
  NicPair pair(c);
  constexpr int kMessages = 64;
  for (int i = 0; i < kMessages; ++i) {
    post_recv(pair.b(), i, kDst + i * kSlot, 500);
    pair.a().qp->post_send(make_send(i, WrOpcode::send, pair.a(), kSrc + i * kSlot, 500));
  }
  pair.kernel().run();
  const auto got = pair.b().poll();
  EXPECT_EQ(got.size(), size_t{kMessages});
  marked = pair.wire().counters(0).ce_marked;
  uint64_t flagged = 0;
  for (const auto& wc : got) flagged += wc.ecn_ce ? 1 : 0;
  return flagged;
}

TEST(Uc, ReceiveCompletionsFlagCeMarkedMessages) {
  uint64_t marked = 0;
  const uint64_t flagged = ce_flagged(true, marked);
  EXPECT_GT(marked, 10u);
  EXPECT_LT(marked, 54u);
  EXPECT_EQ(flagged, marked);
  EXPECT_EQ(ce_flagged(false, marked), 0u);
  EXPECT_EQ(marked, 0u);
}

// UD: both sides have a UD QP; side a sends to side b's QPN with b's Q_Key.
NicPairConfig ud_config() {
  NicPairConfig c;
  c.type = QpType::ud;
  return c;
}

SendWr ud_send(uint64_t id, NicPair& pair, uint32_t length, uint32_t qkey) {
  SendWr wr = make_send(id, WrOpcode::send, pair.a(), kSrc, length);
  wr.ud = UdDestination{pair.b().device->gids().front(), pair.b().qp->qp_num(), qkey};
  return wr;
}

TEST(Ud, ReceiveGetsGrhRoomThenPayloadAndTheSender) {
  NicPair pair(ud_config());
  pair.a().memory->fill(kSrc, 1000, 71);
  post_recv(pair.b(), 1, kDst, kGrhBytes + 1000);
  SendWr wr = ud_send(5, pair, 1000, pair.config().qkey);
  wr.opcode = WrOpcode::send_with_imm;
  wr.imm = 0xBEEF;
  pair.a().qp->post_send(wr);
  pair.kernel().run();
  const auto sent = pair.a().poll();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].status, WcStatus::success);
  const auto got = pair.b().poll();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status, WcStatus::success);
  EXPECT_EQ(got[0].byte_len, kGrhBytes + 1000);
  EXPECT_EQ(got[0].src_qp, pair.a().qp->qp_num());
  EXPECT_EQ(got[0].src_ip, pair.a().device->gids().front());
  EXPECT_EQ(got[0].imm, std::optional<uint32_t>(0xBEEF));
  EXPECT_TRUE(same_content(*pair.a().memory, kSrc, *pair.b().memory, kDst + kGrhBytes, 1000));
}

// A UD send's traffic class (its address handle's) decides the datagram's DSCP and the QP's
// class in the NIC's scheduler: Bifröst's software ACKs rely on it to pass queued data.
TEST(Ud, DatagramsCarryTheirAddressHandlesTrafficClass) {
  NicPair pair(ud_config());
  QueuePair& qp = *pair.a().qp;
  std::vector<uint8_t> dscps;
  pair.wire().set_drop_filter(0, [&dscps](const world::Packet& p) {
    dscps.push_back(p.dscp);
    return false;
  });
  post_recv(pair.b(), 1, kDst, kGrhBytes + 100);
  SendWr wr = ud_send(5, pair, 100, pair.config().qkey);
  wr.ud.traffic_class = 48 << 2;
  qp.post_send(wr);
  EXPECT_EQ(qp.priority(), 6);
  pair.kernel().run();
  ASSERT_EQ(dscps.size(), 1u);
  EXPECT_EQ(dscps[0], 48);
  ASSERT_EQ(pair.b().poll().size(), 1u);
}

TEST(Ud, WrongQkeyIsDroppedAndCounted) {
  NicPair pair(ud_config());
  post_recv(pair.b(), 1, kDst, kGrhBytes + 100);
  pair.a().qp->post_send(ud_send(1, pair, 100, pair.config().qkey ^ 1));
  pair.kernel().run();
  EXPECT_EQ(pair.a().poll().size(), 1u);  // sent, as far as the sender knows
  EXPECT_TRUE(pair.b().poll().empty());
  EXPECT_EQ(pair.b().device->data_path_counters().rx_qkey_mismatch, 1u);
  EXPECT_EQ(pair.b().qp->responder()->posted(), 1u);  // the receive is still there
  EXPECT_TRUE(untouched(*pair.b().memory, kDst, kGrhBytes + 100));
  // The right Q_Key then gets through into that receive.
  pair.a().qp->post_send(ud_send(2, pair, 100, pair.config().qkey));
  pair.kernel().run();
  EXPECT_EQ(pair.b().poll().size(), 1u);
}

TEST(Ud, MessageLargerThanTheMtuIsRefusedAtPost) {
  NicPair pair(ud_config());
  const uint32_t mtu = pair.a().qp->query().path_mtu;
  EXPECT_THROW(pair.a().qp->post_send(ud_send(1, pair, mtu + 1, pair.config().qkey)), Error);
  EXPECT_EQ(pair.a().qp->requester()->outstanding(), 0u);
  // Exactly one MTU is fine.
  post_recv(pair.b(), 1, kDst, kGrhBytes + mtu);
  pair.a().qp->post_send(ud_send(2, pair, mtu, pair.config().qkey));
  pair.kernel().run();
  const auto got = pair.b().poll();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].byte_len, kGrhBytes + mtu);
}

TEST(Ud, NoReceivePostedDropsAndCounts) {
  NicPair pair(ud_config());
  pair.a().qp->post_send(ud_send(1, pair, 10, pair.config().qkey));
  pair.kernel().run();
  EXPECT_EQ(pair.b().device->data_path_counters().rx_ud_no_receive, 1u);
  EXPECT_TRUE(pair.b().poll().empty());
}

}  // namespace
}  // namespace bifrost::rnic
