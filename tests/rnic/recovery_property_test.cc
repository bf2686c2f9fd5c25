// Property tests of RC loss recovery, for every engine: random loss, duplication and
// reordering (each up to 5% per direction), random verbs and message sizes, signaled and
// unsignaled requests. Whatever the network does, every message must arrive exactly once with
// its content intact, completions must come in posting order, and nothing may be left in
// flight. The selective-repeat engines must also resend about as many packets as were lost: an
// SR engine that quietly goes back N fails here.
//
// Replay a failure with BIFROST_PROPERTY_SEEDS=1 BIFROST_PROPERTY_SEED_BASE=<seed>.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "bifrost/core/rng.h"
#include "bifrost/rnic/recovery/fasr.h"
#include "data_path_support.h"
#include "support/property.h"

namespace bifrost::rnic {
namespace {

using namespace bifrost::rnic::testing;

// Message i uses region i on both sides: the source or READ destination on side a, the
// receive buffer, WRITE target or READ source on side b. The rest of a region must stay zero.
constexpr uint64_t kStride = uint64_t{8} << 20;
constexpr uint64_t kMaxLength = uint64_t{4} << 20;
constexpr uint64_t kImmReceiveOffset = kMaxLength + 4096;  // WRITE_WITH_IMM's (unused) receive

uint64_t region(int i) {
  return NicPair::kBufferBase + uint64_t(i) * kStride;
}

bool consumes_receive(WrOpcode op) {
  return op == WrOpcode::send || op == WrOpcode::send_with_imm ||
         op == WrOpcode::rdma_write_with_imm;
}

bool has_imm(WrOpcode op) {
  return op == WrOpcode::send_with_imm || op == WrOpcode::rdma_write_with_imm;
}

struct Message {
  WrOpcode op = WrOpcode::send;
  uint32_t length = 0;
  bool signaled = true;
  uint32_t imm = 0;
  uint32_t pattern = 0;
};

struct Case {
  recovery::EngineKind kind = recovery::EngineKind::gbn;
  uint64_t seed = 1;
  int messages = 24;
  int max_large = 2;
  uint32_t first_psn = 0;
  bool pipeline = false;  // SRNIC's receive pipeline, so its bitmap accesses stall
  // FaSR: its pool, and the paper's lean SR extensions.
  recovery::FasrPoolConfig fasr_pool{};
  bool lean_sr_header = false;
};

struct Outcome {
  uint64_t lost = 0;  // on the wire, both directions, plus receive-pipeline drops
  uint64_t lost_forward = 0;
  uint64_t lost_reverse = 0;
  uint64_t reordered = 0;  // both directions
  uint64_t timeouts = 0;
  uint64_t refused =
      0;  // requests the responder dropped ahead of a gap (READs) or beyond its window
  uint64_t retransmitted = 0;
  uint64_t data_packets = 0;
  uint64_t stalls = 0;
  uint32_t next_psn = 0;  // side a's next PSN at the end
  // FaSR: the sender's units and go-back fallbacks (side a), the receiver's fallbacks (b).
  uint64_t sender_units = 0;
  uint64_t sender_fallbacks = 0;
  uint64_t receiver_fallbacks = 0;
};

// Skewed towards small: most messages fit in a packet or two, a few are up to 4 MB.
uint32_t random_length(RandomStream& random, uint32_t mtu, int& large_left) {
  const double r = random.uniform();
  if (r < 0.15) return static_cast<uint32_t>(random.uniform_int(0, 64));
  if (r < 0.6) return static_cast<uint32_t>(random.uniform_int(1, 2 * mtu));
  if (r < 0.9 || large_left == 0) return static_cast<uint32_t>(random.uniform_int(1, 256 << 10));
  --large_left;
  return static_cast<uint32_t>(random.uniform_int(256 << 10, kMaxLength));
}

Outcome run_case(const Case& c) {
  RandomStream random(c.seed, "recovery_property");
  NicPairConfig config;
  config.device.recovery.kind = c.kind;
  config.device.recovery.fasr_pool = c.fasr_pool;
  config.device.recovery.lean_sr_header = c.lean_sr_header;
  if (c.pipeline) config.device.receive_pipeline = ReceivePipelineConfig{};
  config.first_psn = c.first_psn;
  constexpr uint32_t kMtus[] = {1024, 2048, 4096};
  config.mtu = kMtus[random.uniform_int(0, 2)];
  config.wire.loss = random.uniform() * 0.05;
  config.wire.duplicate = random.uniform() * 0.05;
  config.wire.reorder = random.uniform() * 0.05;
  config.wire.seed = c.seed;
  SCOPED_TRACE(::testing::Message()
               << "engine " << recovery::to_string(c.kind) << ", seed " << c.seed << ", mtu "
               << config.mtu << ", loss " << config.wire.loss << ", duplicate "
               << config.wire.duplicate << ", reorder " << config.wire.reorder);
  NicPair pair(config);
  NicPair::Side& a = pair.a();
  NicPair::Side& b = pair.b();

  std::vector<Message> messages(static_cast<size_t>(c.messages));
  int large_left = c.max_large;
  constexpr WrOpcode kOps[] = {WrOpcode::send, WrOpcode::send_with_imm, WrOpcode::rdma_write,
                               WrOpcode::rdma_write_with_imm, WrOpcode::rdma_read};
  for (size_t i = 0; i < messages.size(); ++i) {
    Message& m = messages[i];
    m.op = kOps[random.uniform_int(0, 4)];
    m.length = random_length(random, config.mtu, large_left);
    m.signaled = random.bernoulli(0.7);
    m.imm = static_cast<uint32_t>(random.next_u64());
    m.pattern = 1 + static_cast<uint32_t>((c.seed * 1000 + i) % (kPatternSeedLimit - 1));
  }

  // Receives first, in the order the receive-consuming messages are posted.
  std::vector<size_t> receivers;
  for (size_t i = 0; i < messages.size(); ++i) {
    const Message& m = messages[i];
    if (!consumes_receive(m.op)) continue;
    const int r = static_cast<int>(i);
    if (m.op == WrOpcode::rdma_write_with_imm) {
      post_recv(b, 1000 + i, region(r) + kImmReceiveOffset, 64);
    } else {
      post_recv(b, 1000 + i, region(r),
                m.length + static_cast<uint32_t>(random.uniform_int(0, 64)));
    }
    receivers.push_back(i);
  }
  for (size_t i = 0; i < messages.size(); ++i) {
    const Message& m = messages[i];
    const int r = static_cast<int>(i);
    if (m.op == WrOpcode::rdma_read) {
      b.memory->fill(region(r), m.length, m.pattern);
    } else {
      a.memory->fill(region(r), m.length, m.pattern);
    }
    SendWr wr = make_remote(i, m.op, a, region(r), m.length, region(r), b.mr->rkey);
    wr.signaled = m.signaled;
    wr.imm = m.imm;
    a.qp->post_send(wr);
  }
  pair.kernel().run();

  // Send completions: the signaled ones, in posting order, all successful.
  const auto sent = a.poll();
  std::vector<uint64_t> expected_ids;
  for (size_t i = 0; i < messages.size(); ++i) {
    if (messages[i].signaled) expected_ids.push_back(i);
  }
  std::vector<uint64_t> sent_ids;
  for (const WorkCompletion& wc : sent) {
    sent_ids.push_back(wc.wr_id);
    EXPECT_EQ(wc.status, WcStatus::success) << "wr " << wc.wr_id << ": " << to_string(wc.status);
    if (wc.wr_id < messages.size()) {
      EXPECT_EQ(wc.opcode, send_completion_opcode(messages[wc.wr_id].op)) << "wr " << wc.wr_id;
    }
  }
  EXPECT_EQ(sent_ids, expected_ids);

  // Receive completions: one per receive-consuming message, in order, with its length and imm.
  const auto got = b.poll();
  EXPECT_EQ(got.size(), receivers.size());
  for (size_t k = 0; k < std::min(got.size(), receivers.size()); ++k) {
    const Message& m = messages[receivers[k]];
    const WorkCompletion& wc = got[k];
    SCOPED_TRACE(::testing::Message() << "receive " << k << " (message " << receivers[k] << ")");
    EXPECT_EQ(wc.status, WcStatus::success) << to_string(wc.status);
    EXPECT_EQ(wc.wr_id, 1000 + receivers[k]);
    EXPECT_EQ(wc.byte_len, m.length);
    EXPECT_EQ(wc.opcode, m.op == WrOpcode::rdma_write_with_imm ? WcOpcode::recv_rdma_with_imm
                                                               : WcOpcode::recv);
    if (has_imm(m.op)) {
      EXPECT_EQ(wc.imm, std::optional<uint32_t>(m.imm));
    } else {
      EXPECT_FALSE(wc.imm.has_value());
    }
  }

  // Memory: every message's bytes at its destination, nothing else in the region touched.
  for (size_t i = 0; i < messages.size(); ++i) {
    const Message& m = messages[i];
    const uint64_t at = region(static_cast<int>(i));
    SCOPED_TRACE(::testing::Message()
                 << "message " << i << " " << to_string(m.op) << " of " << m.length << " bytes");
    const bool read = m.op == WrOpcode::rdma_read;
    const HostMemory& src = read ? *b.memory : *a.memory;
    const HostMemory& dst = read ? *a.memory : *b.memory;
    EXPECT_TRUE(same_content(src, at, dst, at, m.length));
    if (m.op == WrOpcode::rdma_write_with_imm) {
      EXPECT_TRUE(untouched(dst, at + m.length, kImmReceiveOffset - m.length));
      EXPECT_TRUE(untouched(dst, at + kImmReceiveOffset + 64, kStride - kImmReceiveOffset - 64));
    } else {
      EXPECT_TRUE(untouched(dst, at + m.length, kStride - m.length));
    }
  }

  // Nothing left in flight anywhere.
  EXPECT_EQ(a.qp->requester()->outstanding(), 0u);
  EXPECT_EQ(b.qp->requester()->outstanding(), 0u);
  EXPECT_EQ(b.qp->responder()->posted(), 0u);
  EXPECT_EQ(pair.kernel().pending(), 0u);
  EXPECT_EQ(a.qp->state(), QpState::rts);
  EXPECT_EQ(b.qp->state(), QpState::rts);

  Outcome out;
  const auto& wa = pair.wire().counters(0);
  const auto& wb = pair.wire().counters(1);
  const auto& da = a.device->data_path_counters();
  const auto& db = b.device->data_path_counters();
  out.lost_forward = wa.lost + db.rx_pipeline_drops;
  out.lost_reverse = wb.lost + da.rx_pipeline_drops;
  out.lost = out.lost_forward + out.lost_reverse;
  out.reordered = wa.reordered + wb.reordered;
  out.timeouts = da.timeouts;
  out.refused = db.rx_dropped_sequence;
  out.retransmitted = da.tx_retransmitted;
  out.data_packets = da.tx_packets - da.tx_acks;
  out.stalls = db.pipeline_stalls;
  out.next_psn = a.qp->requester()->next_psn();
  if (c.kind == recovery::EngineKind::fasr) {
    const auto& pa = dynamic_cast<const recovery::FasrEngine&>(a.device->recovery_engine()).pool();
    const auto& pb = dynamic_cast<const recovery::FasrEngine&>(b.device->recovery_engine()).pool();
    out.sender_units = pa.usage().sender_unit_allocations;
    out.sender_fallbacks = pa.usage().sender_fallbacks;
    out.receiver_fallbacks = pb.usage().fallbacks;
    for (const auto* pool : {&pa, &pb}) {
      EXPECT_EQ(pool->usage().units_in_use, 0u);
      EXPECT_EQ(pool->usage().blocks_in_use, 0u);
    }
  }
  return out;
}

bool selective(recovery::EngineKind kind) {
  return kind != recovery::EngineKind::gbn;
}

class RecoveryProperty : public ::testing::TestWithParam<recovery::EngineKind> {};

TEST_P(RecoveryProperty, EveryMessageExactlyOnceInOrderUnderLossDuplicationAndReordering) {
  Outcome total;
  for (const uint64_t seed : bifrost::testing::property_seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    Case c;
    c.kind = GetParam();
    c.seed = seed;
    c.pipeline = GetParam() == recovery::EngineKind::srnic;
    const Outcome out = run_case(c);
    if (selective(c.kind)) {
      // The margin over one resend per lost packet, cause by cause:
      // - a reordered packet looks lost to the first SACK behind it: one resend, and with
      //   several reordered at once a resend may itself arrive out of order: two;
      // - a READ that arrives ahead of a gap is refused unSACKed: one resend;
      // - a lost ACK, SACK or READ response (the reverse path) makes the sender resend what
      //   did arrive: one resend in SACK recovery and, if the SACK is the one that was lost,
      //   another when a timeout resends everything unSACKed: two;
      // - a timeout resends the lost retransmission that caused it, plus, rarely, a packet
      //   whose SACK raced it: four per timeout.
      // Going back N costs a window of packets per loss and breaks this by far.
      const uint64_t bound = out.lost_forward + 2 * out.lost_reverse + 2 * out.reordered +
                             out.refused + 4 * out.timeouts;
      EXPECT_LE(out.retransmitted, bound)
          << "lost " << out.lost_forward << "+" << out.lost_reverse << ", reordered "
          << out.reordered << ", refused " << out.refused << ", timeouts " << out.timeouts
          << ", data packets " << out.data_packets;
    }
    if (::testing::Test::HasFailure()) return;  // one failing seed is enough to read
    total.lost += out.lost;
    total.retransmitted += out.retransmitted;
    total.stalls += out.stalls;
  }
  // The runs must have exercised recovery at all.
  EXPECT_GT(total.lost, 0u);
  EXPECT_GT(total.retransmitted, 0u);
  if (GetParam() == recovery::EngineKind::srnic) {
    EXPECT_GT(total.stalls, 0u);
  }
}

// SRNIC keeps its bitmaps in host memory: repairing a loss (moving RCV-NXT over recorded PSNs,
// looking up the PSNs to resend) must stall the pipeline.
TEST(RecoveryPropertySrnic, LossStallsTheReceivePipeline) {
  for (const uint64_t seed : bifrost::testing::property_seeds(5)) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    Case c;
    c.kind = recovery::EngineKind::srnic;
    c.seed = seed;
    c.pipeline = true;
    c.messages = 12;
    const Outcome out = run_case(c);
    if (out.lost_forward > 0) {
      EXPECT_GT(out.stalls, 0u) << "lost " << out.lost_forward;
    }
  }
}

// FaSR's sender on every path: a pool of one unit and three 10-bit blocks on each NIC sends
// the sender and the receiver to go-back-N whenever a burst outgrows it, and the lean SR
// extensions change every frame's size. Delivery stays exactly once and in order.
TEST(RecoveryPropertyFasr, TinyPoolAndLeanHeadersDeliverExactlyOnce) {
  Outcome total;
  for (const uint64_t seed : bifrost::testing::property_seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    Case c;
    c.kind = recovery::EngineKind::fasr;
    c.seed = seed + 31337;
    c.fasr_pool = recovery::FasrPoolConfig{1, 3, 10};
    c.lean_sr_header = true;
    const Outcome out = run_case(c);
    if (::testing::Test::HasFailure()) return;
    total.sender_units += out.sender_units;
    total.sender_fallbacks += out.sender_fallbacks;
    total.receiver_fallbacks += out.receiver_fallbacks;
  }
  EXPECT_GT(total.sender_units, 0u);
  EXPECT_GT(total.sender_fallbacks + total.receiver_fallbacks, 0u);
}

// PSNs start just below 2^24, so every run crosses the wrap under loss.
TEST_P(RecoveryProperty, PsnWrapAroundUnderLoss) {
  for (const uint64_t seed : bifrost::testing::property_seeds(5)) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    Case c;
    c.kind = GetParam();
    c.seed = seed + 7777;
    c.first_psn = 0xFFFFF0;
    c.messages = 16;
    c.max_large = 1;
    const Outcome out = run_case(c);
    EXPECT_LT(out.next_psn, c.first_psn) << "the run did not wrap";
    if (::testing::Test::HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, RecoveryProperty, all_engines(), engine_name);

}  // namespace
}  // namespace bifrost::rnic
