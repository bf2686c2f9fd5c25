// The soft RNIC's data path end to end: two devices on a wire, verbs in, completions and
// memory contents out.
#include <gtest/gtest.h>

#include "bifrost/rnic/work_request.h"
#include "bifrost/sim/nic_pair.h"
#include "data_path_support.h"

namespace bifrost::rnic {
namespace {

using sim::NicPair;
using sim::NicPairConfig;

constexpr uint64_t kSrc = NicPair::kBufferBase;
constexpr uint64_t kDst = NicPair::kBufferBase + (uint64_t{1} << 30);

using testing::make_send;
using testing::post_recv;

class DataPath : public ::testing::TestWithParam<recovery::EngineKind> {
 protected:
  NicPairConfig config(double loss = 0) const {
    NicPairConfig c;
    c.device.recovery.kind = GetParam();
    c.wire.loss = loss;
    c.wire.seed = 7;
    return c;
  }
};

TEST_P(DataPath, SendArrivesIntactWithCompletionsOnBothSides) {
  NicPair pair(config());
  pair.a().memory->fill(kSrc, 10000, 42);
  post_recv(pair.b(), 7, kDst, 16384);
  pair.a().qp->post_send(make_send(1, WrOpcode::send, pair.a(), kSrc, 10000));
  pair.kernel().run();
  const auto sent = pair.a().poll();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].wr_id, 1u);
  EXPECT_EQ(sent[0].status, WcStatus::success);
  const auto got = pair.b().poll();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].wr_id, 7u);
  EXPECT_EQ(got[0].opcode, WcOpcode::recv);
  EXPECT_EQ(got[0].byte_len, 10000u);
  EXPECT_TRUE(same_content(*pair.a().memory, kSrc, *pair.b().memory, kDst, 10000));
}

TEST_P(DataPath, WriteReadAndWriteWithImmediate) {
  NicPair pair(config());
  pair.a().memory->fill(kSrc, 50000, 3);
  pair.b().memory->fill(kDst + 100000, 30000, 4);
  post_recv(pair.b(), 9, kDst + 500000, 0);
  SendWr write = make_send(1, WrOpcode::rdma_write, pair.a(), kSrc, 50000);
  write.remote_addr = kDst;
  write.rkey = pair.b().mr->rkey;
  SendWr read = make_send(2, WrOpcode::rdma_read, pair.a(), kSrc + 200000, 30000);
  read.remote_addr = kDst + 100000;
  read.rkey = pair.b().mr->rkey;
  SendWr imm = make_send(3, WrOpcode::rdma_write_with_imm, pair.a(), kSrc, 3000);
  imm.remote_addr = kDst + 300000;
  imm.rkey = pair.b().mr->rkey;
  imm.imm = 0xABCD;
  pair.a().qp->post_send(write);
  pair.a().qp->post_send(read);
  pair.a().qp->post_send(imm);
  pair.kernel().run();
  const auto sent = pair.a().poll();
  ASSERT_EQ(sent.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(sent[i].wr_id, i + 1);
    EXPECT_EQ(sent[i].status, WcStatus::success);
  }
  EXPECT_EQ(sent[1].opcode, WcOpcode::rdma_read);
  EXPECT_TRUE(same_content(*pair.a().memory, kSrc, *pair.b().memory, kDst, 50000));
  EXPECT_TRUE(
      same_content(*pair.b().memory, kDst + 100000, *pair.a().memory, kSrc + 200000, 30000));
  EXPECT_TRUE(same_content(*pair.a().memory, kSrc, *pair.b().memory, kDst + 300000, 3000));
  const auto got = pair.b().poll();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].opcode, WcOpcode::recv_rdma_with_imm);
  EXPECT_EQ(got[0].imm, 0xABCDu);
  EXPECT_EQ(got[0].byte_len, 3000u);
}

TEST_P(DataPath, RecoversFromLossWithEveryMessageDeliveredOnce) {
  NicPair pair(config(0.02));
  constexpr int kMessages = 40;
  constexpr uint32_t kLength = 20000;
  pair.a().memory->fill(kSrc, uint64_t{kLength} * kMessages, 5);
  for (int i = 0; i < kMessages; ++i)
    post_recv(pair.b(), 100 + i, kDst + uint64_t(i) * 32768, 32768);
  for (int i = 0; i < kMessages; ++i) {
    pair.a().qp->post_send(
        make_send(i, WrOpcode::send, pair.a(), kSrc + uint64_t(i) * kLength, kLength));
  }
  pair.kernel().run();
  const auto sent = pair.a().poll();
  ASSERT_EQ(sent.size(), size_t{kMessages});
  const auto got = pair.b().poll();
  ASSERT_EQ(got.size(), size_t{kMessages});
  for (int i = 0; i < kMessages; ++i) {
    EXPECT_EQ(sent[i].wr_id, uint64_t(i));
    EXPECT_EQ(sent[i].status, WcStatus::success);
    EXPECT_EQ(got[i].wr_id, uint64_t(100 + i));
    EXPECT_EQ(got[i].byte_len, kLength);
    EXPECT_TRUE(same_content(*pair.a().memory, kSrc + uint64_t(i) * kLength, *pair.b().memory,
                             kDst + uint64_t(i) * 32768, kLength));
  }
  EXPECT_GT(pair.wire().counters(0).lost, 0u);
  EXPECT_GT(pair.a().device->data_path_counters().tx_retransmitted, 0u);
}

// A window smaller than the responder's ACK interval (every 8 packets): the packet that fills
// the window asks for an ACK, so a lossless 32-packet WRITE never waits for the timeout (it
// stalled until the QP timeout before, for IRN, SRNIC and FaSR alike).
TEST_P(DataPath, WindowSmallerThanTheAckIntervalDoesNotWaitForTheTimeout) {
  NicPairConfig c = config();
  c.device.recovery.bdp_packets = 4;
  NicPair pair(c);
  constexpr uint32_t kLength = 32 * 1024;
  pair.a().memory->fill(kSrc, kLength, 9);
  pair.a().qp->post_send(testing::make_remote(1, WrOpcode::rdma_write, pair.a(), kSrc, kLength,
                                              kDst, pair.b().mr->rkey));
  pair.kernel().run();
  const auto done = pair.a().poll();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, WcStatus::success);
  EXPECT_EQ(pair.a().device->data_path_counters().timeouts, 0u);
  EXPECT_TRUE(same_content(*pair.a().memory, kSrc, *pair.b().memory, kDst, kLength));
}

// An 8 MiB WRITE from a into b's buffer: about 0.7 ms at 100 Gb/s.
SendWr eight_mib_write(NicPair& pair) {
  SendWr write = make_send(1, WrOpcode::rdma_write, pair.a(), kSrc, 8 << 20);
  write.remote_addr = kDst;
  write.rkey = pair.b().mr->rkey;
  return write;
}

// DCQCN on, and the wire CE-marks 5% of the packets.
NicPairConfig marking_dcqcn() {
  NicPairConfig c;
  c.device.dcqcn = DcqcnConfig{};
  c.wire.ce_mark = 0.05;
  return c;
}

TEST(DataPathDcqcn, CeMarksBringCnpsThatSlowTheSenderDown) {
  auto run = [](double ce_mark) {
    NicPairConfig c;
    c.device.dcqcn = DcqcnConfig{};
    c.wire.ce_mark = ce_mark;
    NicPair pair(c);
    pair.a().qp->post_send(eight_mib_write(pair));
    pair.kernel().run();
    EXPECT_EQ(pair.a().poll().size(), 1u);
    return std::pair{pair.kernel().now(), pair.b().device->data_path_counters().cnps_sent};
  };
  const auto [clean_time, clean_cnps] = run(0);
  const auto [marked_time, marked_cnps] = run(0.05);
  EXPECT_EQ(clean_cnps, 0u);
  EXPECT_GT(marked_cnps, 10u);
  // 8 MiB at 100 Gb/s take about 0.7 ms; DCQCN's cuts must stretch that a lot.
  EXPECT_GT(marked_time.picoseconds(), 2 * clean_time.picoseconds());
}

// A non-stop upgrade turns the NICs' DCQCN off while traffic runs: from then on CE marks bring
// no CNPs and the paced QP is back at line rate, so the transfer ends far sooner than it would
// under DCQCN.
TEST(DataPathDcqcn, DisablingDcqcnWhileRunningRestoresTheLineRate) {
  auto run = [](bool disable) {
    NicPairConfig c = marking_dcqcn();
    NicPair pair(c);
    pair.a().qp->post_send(eight_mib_write(pair));
    pair.kernel().run_until(Time::us(200));
    const uint64_t cnps = pair.b().device->data_path_counters().cnps_sent;
    if (disable) {
      pair.a().device->disable_dcqcn();
      pair.b().device->disable_dcqcn();
    }
    pair.kernel().run();
    EXPECT_EQ(pair.a().poll().size(), 1u);
    EXPECT_GT(cnps, 0u) << "DCQCN must have acted before, or this test shows nothing";
    const uint64_t later = pair.b().device->data_path_counters().cnps_sent - cnps;
    return std::pair{pair.kernel().now(), later};
  };
  const auto [paced_time, paced_cnps] = run(false);
  const auto [freed_time, freed_cnps] = run(true);
  EXPECT_GT(paced_cnps, 0u);
  EXPECT_EQ(freed_cnps, 0u);
  // 8 MiB at 100 Gb/s take about 0.7 ms after the first 200 us.
  EXPECT_LT(freed_time, Time::us(1200));
  EXPECT_GT(paced_time.picoseconds(), 2 * freed_time.picoseconds());
}

// The ConnectX-4-like limit (DeviceConfig::dcqcn_reaction_groups): with one group, the CNPs
// that one QP's marked data brings also pace a QP of the same NIC that has sent nothing; with
// a reaction point per QP the idle QP stays unpaced. Turning DCQCN off frees both.
TEST(DataPathDcqcn, GroupedReactionPointsPaceEveryQpOfTheGroup) {
  auto run = [](size_t groups) {
    NicPairConfig c = marking_dcqcn();
    c.device.dcqcn_reaction_groups = groups;
    NicPair pair(c);
    const NicPair::QpPair idle = pair.add_qp_pair();
    pair.a().qp->post_send(eight_mib_write(pair));
    pair.kernel().run_until(Time::us(200));
    EXPECT_GT(pair.b().device->data_path_counters().cnps_sent, 0u) << "DCQCN must have acted";
    const RateLimiter* limiter = pair.a().device->rate_limiter(*idle.a);
    const bool idle_paced = limiter != nullptr && limiter->limited();
    pair.a().device->disable_dcqcn();
    const RateLimiter* after = pair.a().device->rate_limiter(*idle.a);
    EXPECT_TRUE(after == nullptr || !after->limited()) << "DCQCN off paces nothing";
    return idle_paced;
  };
  EXPECT_FALSE(run(0)) << "a reaction point per QP: the idle QP has no rate of its own";
  EXPECT_TRUE(run(1)) << "one group: the busy QP's CNPs pace the idle QP too";
}

// ConnectX-5's slow restart: every retransmission timeout cuts the QP's DCQCN rate.
TEST(DataPathDcqcn, SlowRestartCutsTheRateAtEveryTimeout) {
  auto run = [](bool slow_restart) {
    NicPairConfig c;
    c.device.dcqcn = DcqcnConfig{};
    c.device.slow_restart = slow_restart;
    c.wire.loss = 0.2;
    c.timeout = 4;  // 65 us: losses of tails and ACKs end in timeouts soon
    NicPair pair(c);
    for (uint64_t i = 0; i < 16; ++i) {
      SendWr write = make_send(i, WrOpcode::rdma_write, pair.a(), kSrc, 4096);
      write.remote_addr = kDst;
      write.rkey = pair.b().mr->rkey;
      pair.a().qp->post_send(write);
    }
    pair.kernel().run();
    EXPECT_EQ(pair.a().poll().size(), 16u);
    return pair.a().device->data_path_counters();
  };
  const DataPathCounters off = run(false);
  const DataPathCounters on = run(true);
  ASSERT_GT(on.timeouts, 0u) << "the losses must need a timeout, or this test shows nothing";
  EXPECT_EQ(off.slow_restarts, 0u);
  EXPECT_EQ(on.slow_restarts, on.timeouts);
}

INSTANTIATE_TEST_SUITE_P(Engines, DataPath,
                         ::testing::Values(recovery::EngineKind::gbn, recovery::EngineKind::irn,
                                           recovery::EngineKind::srnic, recovery::EngineKind::fasr),
                         [](const auto& param_info) {
                           return std::string(recovery::to_string(param_info.param));
                         });

}  // namespace
}  // namespace bifrost::rnic
