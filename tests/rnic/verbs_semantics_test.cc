// Verbs semantics of the soft RNIC that applications rely on: how a QP fails (retry and RNR
// exhaustion, protection errors) and flushes, zero-length messages, ACK coalescing, RESET and
// reconnect, the per-QP rate limiter and priority scheduling. Every engine unless noted.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "bifrost/wire/frame.h"
#include "data_path_support.h"

namespace bifrost::rnic {
namespace {

using namespace bifrost::rnic::testing;

constexpr uint64_t kSrc = NicPair::kBufferBase;
constexpr uint64_t kDst = NicPair::kBufferBase + (uint64_t{1} << 30);

class Verbs : public ::testing::TestWithParam<recovery::EngineKind> {
 protected:
  NicPairConfig config() const {
    NicPairConfig c;
    c.device.recovery.kind = GetParam();
    return c;
  }
};

TEST_P(Verbs, RetryExhaustionFailsTheFirstAndFlushesTheRest) {
  NicPairConfig c = config();
  c.timeout = 1;  // 8 us
  c.retry_cnt = 2;
  NicPair pair(c);
  pair.wire().set_drop_filter(0, [](const world::Packet&) { return true; });
  post_recv(pair.a(), 50, kDst, 4096);  // a receive on the failing QP is flushed too
  for (uint64_t id = 1; id <= 3; ++id) {
    pair.a().qp->post_send(make_send(id, WrOpcode::send, pair.a(), kSrc, 5000));
  }
  pair.kernel().run();
  const auto wcs = pair.a().poll();
  ASSERT_EQ(wcs.size(), 4u);
  EXPECT_EQ(wcs[0].wr_id, 1u);
  EXPECT_EQ(wcs[0].status, WcStatus::retry_exceeded);
  EXPECT_EQ(wcs[1].wr_id, 2u);
  EXPECT_EQ(wcs[1].status, WcStatus::flush_error);
  EXPECT_EQ(wcs[2].wr_id, 3u);
  EXPECT_EQ(wcs[2].status, WcStatus::flush_error);
  EXPECT_EQ(wcs[3].wr_id, 50u);
  EXPECT_EQ(wcs[3].opcode, WcOpcode::recv);
  EXPECT_EQ(wcs[3].status, WcStatus::flush_error);
  EXPECT_EQ(pair.a().qp->state(), QpState::err);
  EXPECT_EQ(pair.a().device->data_path_counters().timeouts, 3u);  // retry_cnt + 1

  // In ERR, new work completes at once with flush_error.
  pair.a().qp->post_send(make_send(9, WrOpcode::send, pair.a(), kSrc, 100));
  post_recv(pair.a(), 51, kDst, 100);
  const auto later = pair.a().poll();
  ASSERT_EQ(later.size(), 2u);
  EXPECT_EQ(later[0].wr_id, 9u);
  EXPECT_EQ(later[0].status, WcStatus::flush_error);
  EXPECT_EQ(later[1].wr_id, 51u);
  EXPECT_EQ(later[1].status, WcStatus::flush_error);
}

TEST_P(Verbs, RnrNakUntilTheReceiveIsPostedThenDelivered) {
  NicPair pair(config());
  pair.a().memory->fill(kSrc, 6000, 11);
  pair.a().qp->post_send(make_send(1, WrOpcode::send, pair.a(), kSrc, 6000));
  const Time posted_at = Time::us(50);
  pair.kernel().at(posted_at, [&pair] { post_recv(pair.b(), 7, kDst, 8192); });
  pair.kernel().run();
  EXPECT_GT(pair.b().device->data_path_counters().rnr_naks_sent, 0u);
  const auto sent = pair.a().poll();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].status, WcStatus::success);
  const auto got = pair.b().poll();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].wr_id, 7u);
  EXPECT_EQ(got[0].byte_len, 6000u);
  EXPECT_GE(got[0].hw_timestamp, posted_at);
  EXPECT_TRUE(same_content(*pair.a().memory, kSrc, *pair.b().memory, kDst, 6000));
}

TEST_P(Verbs, RnrRetryExhaustion) {
  NicPairConfig c = config();
  c.rnr_retry = 2;
  NicPair pair(c);
  pair.a().qp->post_send(make_send(1, WrOpcode::send, pair.a(), kSrc, 100));
  pair.a().qp->post_send(make_send(2, WrOpcode::send, pair.a(), kSrc, 100));
  pair.kernel().run();
  const auto wcs = pair.a().poll();
  ASSERT_EQ(wcs.size(), 2u);
  EXPECT_EQ(wcs[0].status, WcStatus::rnr_retry_exceeded);
  EXPECT_EQ(wcs[1].status, WcStatus::flush_error);
  EXPECT_EQ(pair.a().qp->state(), QpState::err);
  EXPECT_EQ(pair.b().device->data_path_counters().rnr_naks_sent, 3u);  // rnr_retry + 1
}

// A remote access error: the requester fails with remote_access_error and goes to ERR, and
// the target memory keeps every byte it had.
struct Violation {
  const char* name;
  WrOpcode op;
  enum Kind { wrong_rkey, outside_mr, straddles_mr, mr_without_right, qp_without_right } kind;
};

class Protection : public ::testing::TestWithParam<std::tuple<recovery::EngineKind, Violation>> {};

TEST_P(Protection, RemoteAccessErrorLeavesTargetUntouched) {
  const auto [engine, v] = GetParam();
  NicPairConfig c;
  c.device.recovery.kind = engine;
  NicPair pair(c);
  NicPair::Side& a = pair.a();
  NicPair::Side& b = pair.b();
  constexpr uint32_t kLength = 20000;  // several packets
  constexpr uint64_t kMrLength = 64 << 10;
  a.memory->fill(kSrc, kLength, 21);
  b.memory->fill(kDst, 2 * kMrLength, 22);
  TokenMemory before(NicPair::kBufferBase, c.buffer_bytes);
  before.fill(kDst, 2 * kMrLength, 22);
  before.fill(kSrc, kLength, 21);

  // A small MR at kDst for the bounds cases, and one without the wanted right.
  const Access all = Access::local_write | Access::remote_write | Access::remote_read;
  const MemoryRegion& small = b.device->reg_mr(b.pd, kDst, kMrLength, all, b.memory.get());
  const Access without = v.op == WrOpcode::rdma_read ? Access::local_write | Access::remote_write
                                                     : Access::local_write | Access::remote_read;
  const MemoryRegion& limited = b.device->reg_mr(b.pd, kDst, kMrLength, without, b.memory.get());
  uint64_t remote = kDst;
  uint32_t rkey = b.mr->rkey;
  switch (v.kind) {
    case Violation::wrong_rkey:
      rkey = b.mr->rkey ^ 0x5A5A5A;
      break;
    case Violation::outside_mr:
      rkey = small.rkey;
      remote = kDst + kMrLength;
      break;
    case Violation::straddles_mr:
      rkey = small.rkey;
      remote = kDst + kMrLength - 8192;
      break;
    case Violation::mr_without_right:
      rkey = limited.rkey;
      break;
    case Violation::qp_without_right: {
      QpAttr attr = b.qp->query();
      attr.access_flags = v.op == WrOpcode::rdma_read ? Access::remote_write : Access::remote_read;
      b.qp->modify(attr, QpAttrMask::access_flags);
      break;
    }
  }
  a.qp->post_send(make_remote(1, v.op, a, kSrc, kLength, remote, rkey));
  a.qp->post_send(make_send(2, WrOpcode::send, a, kSrc, 10));
  pair.kernel().run();
  const auto wcs = a.poll();
  ASSERT_EQ(wcs.size(), 2u);
  EXPECT_EQ(wcs[0].wr_id, 1u);
  EXPECT_EQ(wcs[0].status, WcStatus::remote_access_error) << to_string(wcs[0].status);
  EXPECT_EQ(wcs[1].status, WcStatus::flush_error);
  EXPECT_EQ(a.qp->state(), QpState::err);
  EXPECT_GT(b.device->data_path_counters().access_naks_sent, 0u);
  // Not one byte changed on either side (a READ must not land anything either).
  EXPECT_TRUE(same_content(*b.memory, kDst, before, kDst, 2 * kMrLength));
  EXPECT_TRUE(same_content(*a.memory, kSrc, before, kSrc, kLength));
  EXPECT_TRUE(b.poll().empty());
  EXPECT_EQ(b.qp->state(), QpState::err) << "the responder's class C error moves it to ERR too";
}

std::vector<Violation> violations() {
  std::vector<Violation> out;
  for (const WrOpcode op : {WrOpcode::rdma_write, WrOpcode::rdma_read}) {
    const bool w = op == WrOpcode::rdma_write;
    out.push_back({w ? "write_wrong_rkey" : "read_wrong_rkey", op, Violation::wrong_rkey});
    out.push_back({w ? "write_outside_mr" : "read_outside_mr", op, Violation::outside_mr});
    out.push_back({w ? "write_straddles_mr" : "read_straddles_mr", op, Violation::straddles_mr});
    out.push_back(
        {w ? "write_mr_without_right" : "read_mr_without_right", op, Violation::mr_without_right});
    out.push_back(
        {w ? "write_qp_without_right" : "read_qp_without_right", op, Violation::qp_without_right});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Cases, Protection,
                         ::testing::Combine(all_engines(), ::testing::ValuesIn(violations())),
                         [](const auto& param_info) {
                           return std::string(recovery::to_string(std::get<0>(param_info.param))) +
                                  "_" + std::get<1>(param_info.param).name;
                         });

TEST_P(Verbs, BadLkeyIsALocalProtectionError) {
  NicPair pair(config());
  SendWr wr = make_send(1, WrOpcode::send, pair.a(), kSrc, 100);
  wr.sge.lkey ^= 0x777;
  pair.a().qp->post_send(wr);
  pair.kernel().run();
  const auto wcs = pair.a().poll();
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, WcStatus::local_protection_error);
  EXPECT_EQ(pair.a().qp->state(), QpState::err);
  EXPECT_EQ(pair.a().device->data_path_counters().tx_packets, 0u);  // nothing left the NIC
}

TEST_P(Verbs, SendLongerThanTheReceiveFailsBothSides) {
  NicPairConfig c = config();
  NicPair pair(c);
  NicPair::Side& a = pair.a();
  NicPair::Side& b = pair.b();
  post_recv(b, 70, kDst, 4096);
  post_recv(b, 71, kDst + 8192, 4096);
  a.qp->post_send(make_send(1, WrOpcode::send, a, kSrc, 3000));
  a.qp->post_send(make_send(2, WrOpcode::send, a, kSrc, 5000));  // one byte-range too long
  pair.kernel().run();
  const auto sent = a.poll();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].status, WcStatus::success);
  EXPECT_EQ(sent[1].status, WcStatus::remote_invalid_request) << to_string(sent[1].status);
  const auto got = b.poll();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].wr_id, 70u);
  EXPECT_EQ(got[0].status, WcStatus::success);
  EXPECT_EQ(got[1].wr_id, 71u);
  EXPECT_EQ(got[1].status, WcStatus::local_length_error) << to_string(got[1].status);
  EXPECT_EQ(a.qp->state(), QpState::err);
  EXPECT_EQ(b.qp->state(), QpState::err);
}

TEST_P(Verbs, ZeroLengthSendAndWriteWithImmediate) {
  NicPair pair(config());
  post_recv(pair.b(), 1, kDst, 64);
  post_recv(pair.b(), 2, kDst, 64);
  pair.a().qp->post_send(make_send(10, WrOpcode::send, pair.a(), kSrc, 0));
  SendWr imm =
      make_remote(11, WrOpcode::rdma_write_with_imm, pair.a(), kSrc, 0, kDst, pair.b().mr->rkey);
  imm.imm = 77;
  pair.a().qp->post_send(imm);
  pair.kernel().run();
  const auto sent = pair.a().poll();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].status, WcStatus::success);
  EXPECT_EQ(sent[1].status, WcStatus::success);
  const auto got = pair.b().poll();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].wr_id, 1u);
  EXPECT_EQ(got[0].opcode, WcOpcode::recv);
  EXPECT_EQ(got[0].byte_len, 0u);
  EXPECT_EQ(got[1].wr_id, 2u);
  EXPECT_EQ(got[1].opcode, WcOpcode::recv_rdma_with_imm);
  EXPECT_EQ(got[1].byte_len, 0u);
  EXPECT_EQ(got[1].imm, std::optional<uint32_t>(77));
  EXPECT_TRUE(untouched(*pair.b().memory, kDst, 64));
}

// The responder ACKs every N in-order packets and the last one (AckReq): ceil(P / N) ACKs for
// a P-packet message, one for N = 0.
TEST_P(Verbs, AckCoalescing) {
  constexpr uint32_t kPackets = 100;
  for (const uint32_t every : {0u, 1u, 4u, 8u, 64u, 100u, 200u}) {
    SCOPED_TRACE(::testing::Message() << "ack_every_packets " << every);
    NicPairConfig c = config();
    c.device.data_path.ack_every_packets = every;
    c.device.data_path.ack_delay = Time::zero();  // the count alone: the bound is tested apart
    NicPair pair(c);
    pair.a().qp->post_send(make_remote(1, WrOpcode::rdma_write, pair.a(), kSrc, kPackets * c.mtu,
                                       kDst, pair.b().mr->rkey));
    pair.kernel().run();
    ASSERT_EQ(pair.a().poll().size(), 1u);
    const uint64_t expected = every == 0 ? 1 : (kPackets + every - 1) / every;
    EXPECT_EQ(pair.b().device->data_path_counters().tx_acks, expected);
    EXPECT_EQ(pair.a().device->data_path_counters().tx_packets, kPackets);
  }
}

TEST_P(Verbs, ModifyToErrorFlushesBothQueues) {
  NicPair pair(config());
  pair.wire().set_drop_filter(0, [](const world::Packet&) { return true; });
  post_recv(pair.a(), 20, kDst, 100);
  post_recv(pair.a(), 21, kDst, 100);
  pair.a().qp->post_send(make_send(1, WrOpcode::send, pair.a(), kSrc, 3000));
  SendWr unsignaled = make_send(2, WrOpcode::send, pair.a(), kSrc, 3000);
  unsignaled.signaled = false;  // flushed work completes whether signaled or not
  pair.a().qp->post_send(unsignaled);
  pair.kernel().run_until(Time::us(5));
  QpAttr attr;
  attr.state = QpState::err;
  pair.a().qp->modify(attr, QpAttrMask::state);
  EXPECT_EQ(pair.a().qp->state(), QpState::err);
  const auto wcs = pair.a().poll();
  ASSERT_EQ(wcs.size(), 4u);
  EXPECT_EQ(wcs[0].wr_id, 1u);
  EXPECT_EQ(wcs[1].wr_id, 2u);
  EXPECT_EQ(wcs[2].wr_id, 20u);
  EXPECT_EQ(wcs[3].wr_id, 21u);
  for (const auto& wc : wcs) EXPECT_EQ(wc.status, WcStatus::flush_error);
  EXPECT_EQ(pair.a().qp->requester()->outstanding(), 0u);
  pair.kernel().run();  // the timer must not fire into the flushed QP
  EXPECT_TRUE(pair.a().poll().empty());
}

TEST_P(Verbs, ResetThenReconnectWorks) {
  NicPairConfig c = config();
  NicPair pair(c);
  // Leave work behind in both directions, then reset both QPs.
  pair.a().qp->post_send(make_send(1, WrOpcode::send, pair.a(), kSrc, 100));
  pair.kernel().run_until(Time::ms(20));                   // RNR-NAKed all along: no receive posted
  EXPECT_EQ(pair.a().qp->requester()->outstanding(), 1u);  // RNR NAKs are no transport timeouts
  QpAttr attr;
  attr.state = QpState::reset;
  pair.a().qp->modify(attr, QpAttrMask::state);
  pair.b().qp->modify(attr, QpAttrMask::state);
  EXPECT_TRUE(pair.a().poll().empty());  // RESET forgets without completions
  constexpr uint32_t kPsn = 0x123456;
  connect_qp(*pair.a().qp, *pair.b().qp, pair.b().device->gids().front(), c, kPsn);
  connect_qp(*pair.b().qp, *pair.a().qp, pair.a().device->gids().front(), c, kPsn);
  pair.a().memory->fill(kSrc, 9000, 31);
  post_recv(pair.b(), 5, kDst, 9000);
  pair.a().qp->post_send(make_send(2, WrOpcode::send, pair.a(), kSrc, 9000));
  pair.kernel().run();
  const auto sent = pair.a().poll();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].wr_id, 2u);
  EXPECT_EQ(sent[0].status, WcStatus::success);
  const auto got = pair.b().poll();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].wr_id, 5u);
  EXPECT_EQ(got[0].byte_len, 9000u);
  EXPECT_TRUE(same_content(*pair.a().memory, kSrc, *pair.b().memory, kDst, 9000));
  EXPECT_EQ(pair.a().qp->requester()->next_psn(), wire::psn_add(kPsn, 9));
}

// Completion time of a 1 MB WRITE: the wire's serialization at 100 Gb/s, or the limiter's
// pacing at 10 Gb/s (after its one-packet burst credit), plus the delay and the final ACK.
TEST_P(Verbs, RateLimiterPacesAQp) {
  constexpr uint32_t kLength = 1 << 20;
  auto finish = [&](Rate limit) {
    NicPairConfig c = config();
    NicPair pair(c);
    if (limit != Rate::bps(0)) pair.a().device->set_rate_limit(*pair.a().qp, limit);
    pair.a().qp->post_send(
        make_remote(1, WrOpcode::rdma_write, pair.a(), kSrc, kLength, kDst, pair.b().mr->rkey));
    pair.kernel().run();
    const auto wcs = pair.a().poll();
    EXPECT_EQ(wcs.size(), 1u);
    return wcs.empty() ? Time::zero() : wcs[0].hw_timestamp;
  };
  const Time unlimited = finish(Rate::bps(0));
  const Time limited = finish(Rate::Gbps(10));
  const uint32_t packets = kLength / NicPairConfig{}.mtu;
  const bool sr = GetParam() != recovery::EngineKind::gbn;
  const double frame = static_cast<double>(
      wire::ethernet_frame_size(wire::Opcode::kRcWriteMiddle, NicPairConfig{}.mtu) + (sr ? 16 : 0));
  const double bits = frame * 8 * packets;
  // Paced: every packet but the burst's at 10 Gb/s; the last one still serializes at 100.
  const double paced_us = (bits - 4096 * 8) / 10e3;
  const double wire_us = bits / 100e3;
  EXPECT_NEAR(unlimited.microseconds(), wire_us, 0.05 * wire_us + 3);
  EXPECT_NEAR(limited.microseconds(), paced_us, 0.02 * paced_us + 3);
  const double ratio = limited.microseconds() / unlimited.microseconds();
  EXPECT_GT(ratio, 8.5);
  EXPECT_LT(ratio, 10.5);
}

// Two QP pairs on the same devices posting at once: the higher traffic class goes first.
TEST_P(Verbs, HigherTrafficClassFinishesFirst) {
  NicPairConfig c = config();
  NicPair pair(c);
  NicPair::Side& a = pair.a();
  NicPair::Side& b = pair.b();
  QueuePair& high_a = a.device->create_qp(a.pd, QpType::rc, *a.cq, *a.cq);
  QueuePair& high_b = b.device->create_qp(b.pd, QpType::rc, *b.cq, *b.cq);
  constexpr uint8_t kExpedited = 46 << 2;  // DSCP EF: class 5
  connect_qp(high_a, high_b, b.device->gids().front(), c, 0, kExpedited);
  connect_qp(high_b, high_a, a.device->gids().front(), c, 0, kExpedited);
  ASSERT_GT(high_a.priority(), a.qp->priority());
  constexpr uint32_t kLength = 1 << 20;
  a.qp->post_send(make_remote(1, WrOpcode::rdma_write, a, kSrc, kLength, kDst, b.mr->rkey));
  high_a.post_send(
      make_remote(2, WrOpcode::rdma_write, a, kSrc, kLength, kDst + kLength, b.mr->rkey));
  pair.kernel().run();
  const auto wcs = a.poll();
  ASSERT_EQ(wcs.size(), 2u);
  EXPECT_EQ(wcs[0].wr_id, 2u);  // the high class completed first
  EXPECT_EQ(wcs[0].qp_num, high_a.qp_num());
  EXPECT_EQ(wcs[1].wr_id, 1u);
  // Strict priority: the high QP finishes about when it would alone, the low one at twice that.
  EXPECT_LT(wcs[0].hw_timestamp.microseconds() * 1.7, wcs[1].hw_timestamp.microseconds());
  EXPECT_TRUE(same_content(*a.memory, kSrc, *b.memory, kDst, kLength));
  EXPECT_TRUE(same_content(*a.memory, kSrc, *b.memory, kDst + kLength, kLength));
}

INSTANTIATE_TEST_SUITE_P(Engines, Verbs, all_engines(), engine_name);

}  // namespace
}  // namespace bifrost::rnic
