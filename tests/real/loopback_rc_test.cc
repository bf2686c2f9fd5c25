// Two soft RNICs over real loopback UDP: RC WRITE, SEND and READ land byte-exact.
#include <gtest/gtest.h>

#include "bifrost/rnic/work_request.h"
#include "loopback_pair.h"

namespace bifrost::real {
namespace {

using testing::LoopbackPair;
using testing::LoopbackPairConfig;
constexpr uint64_t kBase = LoopbackPair::kBase;

void fill(LoopbackPair::Side& side, uint64_t va, uint32_t length, uint32_t seed) {
  rnic::fill_pattern(seed, 0, side.memory->bytes().subspan(va - kBase, length));
}

bool holds_pattern(const LoopbackPair::Side& side, uint64_t va, uint32_t length, uint32_t seed) {
  std::vector<std::byte> want(length);
  rnic::fill_pattern(seed, 0, want);
  const auto got = side.memory->bytes().subspan(va - kBase, length);
  return std::equal(got.begin(), got.end(), want.begin());
}

rnic::SendWr wr(uint64_t id, rnic::WrOpcode op, const LoopbackPair::Side& side, uint64_t addr,
                uint32_t length) {
  rnic::SendWr w;
  w.wr_id = id;
  w.opcode = op;
  w.sge = rnic::Sge{addr, length, side.mr->lkey};
  return w;
}

class LoopbackRc : public ::testing::TestWithParam<uint32_t> {};

TEST_P(LoopbackRc, WriteLandsByteExact) {
  LoopbackPair pair;
  const uint32_t length = GetParam();
  fill(pair.a(), kBase, length, 7);
  rnic::SendWr w = wr(1, rnic::WrOpcode::rdma_write, pair.a(), kBase, length);
  w.remote_addr = kBase + 4096;
  w.rkey = pair.b().mr->rkey;
  pair.a().qp->post_send(w);
  const rnic::WorkCompletion wc = pair.wait_completion(pair.a());
  EXPECT_EQ(wc.status, rnic::WcStatus::success);
  EXPECT_EQ(wc.wr_id, 1u);
  EXPECT_TRUE(holds_pattern(pair.b(), kBase + 4096, length, 7));
  // Nothing outside the target range was touched.
  EXPECT_TRUE(holds_pattern(pair.b(), kBase, 4096, 0));
  EXPECT_TRUE(holds_pattern(pair.b(), kBase + 4096 + length, 4096, 0));
  EXPECT_EQ(pair.a().port->counters().rx_dropped(), 0u);
  EXPECT_EQ(pair.b().port->counters().rx_dropped(), 0u);
  EXPECT_GT(pair.b().port->counters().rx_delivered, 0u);
}

TEST_P(LoopbackRc, SendLandsInThePostedReceive) {
  LoopbackPair pair;
  const uint32_t length = GetParam();
  fill(pair.a(), kBase, length, 9);
  pair.b().qp->post_recv(rnic::RecvWr{5, rnic::Sge{kBase + 8192, length, pair.b().mr->lkey}});
  pair.a().qp->post_send(wr(2, rnic::WrOpcode::send, pair.a(), kBase, length));
  const rnic::WorkCompletion recv = pair.wait_completion(pair.b());
  EXPECT_EQ(recv.status, rnic::WcStatus::success);
  EXPECT_EQ(recv.opcode, rnic::WcOpcode::recv);
  EXPECT_EQ(recv.byte_len, length);
  EXPECT_TRUE(holds_pattern(pair.b(), kBase + 8192, length, 9));
  EXPECT_EQ(pair.wait_completion(pair.a()).status, rnic::WcStatus::success);
}

TEST_P(LoopbackRc, ReadFetchesByteExact) {
  LoopbackPair pair;
  const uint32_t length = GetParam();
  fill(pair.b(), kBase + 65536, length, 11);
  rnic::SendWr w = wr(3, rnic::WrOpcode::rdma_read, pair.a(), kBase + 4096, length);
  w.remote_addr = kBase + 65536;
  w.rkey = pair.b().mr->rkey;
  pair.a().qp->post_send(w);
  const rnic::WorkCompletion wc = pair.wait_completion(pair.a());
  EXPECT_EQ(wc.status, rnic::WcStatus::success);
  EXPECT_EQ(wc.opcode, rnic::WcOpcode::rdma_read);
  EXPECT_TRUE(holds_pattern(pair.a(), kBase + 4096, length, 11));
}

// One byte, an unaligned size within one packet, exactly one MTU, and many packets.
INSTANTIATE_TEST_SUITE_P(Sizes, LoopbackRc, ::testing::Values(1u, 1001u, 4096u, 1000003u));

TEST(LoopbackRcStream, ManyWritesInFlightAllComplete) {
  // 32 MB posted at once over go-back-N, which has no window: when both cores are busy (other
  // tests, a build) the receiver falls behind, its socket overflows, and a 4 ms ACK timeout
  // with 7 retries can run out. This test is about completions, not speed: 67 ms.
  LoopbackPairConfig config;
  config.timeout = 14;
  LoopbackPair pair(config);
  constexpr uint32_t kMessages = 2000;
  constexpr uint32_t kSize = 16384;
  fill(pair.a(), kBase, kSize * 8, 3);
  for (uint32_t i = 0; i < kMessages; ++i) {
    rnic::SendWr w = wr(i, rnic::WrOpcode::rdma_write, pair.a(), kBase + (i % 8) * kSize, kSize);
    w.remote_addr = kBase + (i % 8) * kSize;
    w.rkey = pair.b().mr->rkey;
    pair.a().qp->post_send(w);
  }
  uint32_t done = 0;
  uint64_t next_id = 0;
  std::vector<rnic::WorkCompletion> wcs(64);
  const bool finished = pair.run_until([&] {
    const size_t n = pair.a().cq->poll(wcs.size(), wcs);
    for (size_t i = 0; i < n; ++i) {
      EXPECT_EQ(wcs[i].status, rnic::WcStatus::success);
      EXPECT_EQ(wcs[i].wr_id, next_id++);  // RC completes in order
    }
    done += static_cast<uint32_t>(n);
    return done == kMessages;
  });
  ASSERT_TRUE(finished) << done << " of " << kMessages;
  EXPECT_TRUE(holds_pattern(pair.b(), kBase, kSize * 8, 3));
  // Batching happened: fewer sendmmsg calls than datagrams.
  EXPECT_LT(pair.a().port->counters().tx_calls, pair.a().port->counters().tx_datagrams);
}

TEST(LoopbackUc, WriteLandsByteExact) {
  LoopbackPair pair(LoopbackPairConfig{.type = rnic::QpType::uc});
  fill(pair.a(), kBase, 50000, 5);
  rnic::SendWr w = wr(1, rnic::WrOpcode::rdma_write, pair.a(), kBase, 50000);
  w.remote_addr = kBase + 100000;
  w.rkey = pair.b().mr->rkey;
  pair.a().qp->post_send(w);
  EXPECT_EQ(pair.wait_completion(pair.a()).status, rnic::WcStatus::success);
  // UC completes at the sender once sent; wait for the receiver to have the bytes.
  EXPECT_TRUE(pair.run_until([&] { return holds_pattern(pair.b(), kBase + 100000, 50000, 5); }));
}

}  // namespace
}  // namespace bifrost::real
