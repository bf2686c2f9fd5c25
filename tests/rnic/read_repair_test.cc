// Lost READ responses on two NICs joined by a wire that drops chosen responses: go-back-N asks
// for the rest of the READ from the first lost one, the selective engines (R-READ) only for
// the lost ones, learning of a lost last response from the ACK their responders send for every
// READ request. Either way the READ completes with every byte in place.
#include <gtest/gtest.h>

#include <optional>
#include <set>

#include <string>

#include "bifrost/core/time.h"
#include "bifrost/rnic/completion_queue.h"
#include "bifrost/rnic/host_memory.h"
#include "bifrost/rnic/packet_kind.h"
#include "bifrost/rnic/work_request.h"
#include "bifrost/sim/nic_pair.h"

namespace bifrost::rnic {
namespace {

using recovery::EngineKind;
using sim::NicPair;

constexpr uint32_t kMtu = 1024;
constexpr uint64_t kSource = NicPair::kBufferBase;                        // on b
constexpr uint64_t kTarget = NicPair::kBufferBase + (uint64_t{1} << 30);  // on a

struct ReadRun {
  uint64_t responses = 0;  // READ response packets the responder sent
  uint64_t timeouts = 0;
  std::optional<WcStatus> status;  // of the READ's one completion
  bool intact = false;
};

// One READ of `packets` responses; a response whose index is in `lost` is dropped as many times
// as it is there. With the default 20 us one-way delay a whole stream has left before any
// re-request arrives, and the 40 us round trip stays below the 100 us RTO_low; a short delay
// lands re-requests in the middle of the stream.
ReadRun read_losing(EngineKind engine, uint32_t packets, const std::multiset<uint32_t>& lost,
                    Time delay = Time::us(20), bool gap_waits_for_timeout = false) {
  sim::NicPairConfig config;
  config.mtu = kMtu;
  config.wire.delay = delay;
  config.device.recovery.kind = engine;
  config.device.data_path.read_gap_waits_for_timeout = gap_waits_for_timeout;
  NicPair pair(config);
  const uint64_t bytes = uint64_t{packets} * kMtu - 100;  // a short last response
  pair.b().memory->fill(kSource, bytes, 7);
  ReadRun run;
  std::multiset<uint32_t> to_drop = lost;
  pair.wire().set_drop_filter(1, [&](const world::Packet& p) {
    if (packet_kind(p.roce.bth.opcode).operation != Operation::read_response) return false;
    ++run.responses;
    const auto it = to_drop.find(p.roce.bth.psn);  // the READ's first PSN is 0: psn = index
    if (it == to_drop.end()) return false;
    to_drop.erase(it);
    return true;
  });
  SendWr wr;
  wr.opcode = WrOpcode::rdma_read;
  wr.sge = Sge{kTarget, static_cast<uint32_t>(bytes), pair.a().mr->lkey};
  wr.remote_addr = kSource;
  wr.rkey = pair.b().mr->rkey;
  pair.a().qp->post_send(wr);
  pair.kernel().run();
  const auto done = pair.a().poll();
  if (done.size() == 1) run.status = done.front().status;  // more or fewer: a failure
  run.timeouts = pair.a().device->data_path_counters().timeouts;
  run.intact = same_content(*pair.b().memory, kSource, *pair.a().memory, kTarget, bytes);
  return run;
}

// The READ completed intact, after `timeouts` timeouts and `responses` responses in all.
void expect_repaired(const ReadRun& run, uint64_t timeouts, uint64_t responses) {
  EXPECT_EQ(run.status, WcStatus::success);
  EXPECT_TRUE(run.intact);
  EXPECT_EQ(run.timeouts, timeouts);
  EXPECT_EQ(run.responses, responses);
}

class ReadRepair : public ::testing::TestWithParam<EngineKind> {};

TEST_P(ReadRepair, AsksOnlyForTheLostResponses) {
  // Every loss is followed by a response that shows it: no timeout.
  const ReadRun run = read_losing(GetParam(), 64, {10, 11, 30, 47});
  expect_repaired(run, 0u, 64u + 4u);
}

TEST_P(ReadRepair, ALostTailIsShownByTheAckOfTheReadRequest) {
  // No response follows the last one, but the responder ACKs the READ request behind its
  // responses: the ACK arrives past the missing one, with no timeout.
  const ReadRun run = read_losing(GetParam(), 32, {5, 31});
  expect_repaired(run, 0u, 32u + 2u);
}

TEST_P(ReadRepair, ALostRepairIsAskedAgainAfterTheTimeout) {
  // Response 3 is lost in the stream and again in the answer to its re-request.
  const ReadRun run = read_losing(GetParam(), 16, {3, 3});
  expect_repaired(run, 1u, 16u + 2u);
}

TEST_P(ReadRepair, ARepairMidStreamLeavesTheStreamGoing) {
  // 512 responses take 45 us at 100 Gb/s; with a 1 us delay the re-requests arrive while the
  // responder is still streaming, which must answer them first and carry on.
  const ReadRun run = read_losing(GetParam(), 512, {20, 100, 101, 300}, Time::us(1));
  expect_repaired(run, 0u, 512u + 4u);
}

TEST_P(ReadRepair, AReadBehindALostRequestRunsAtOnce) {
  // Two READs; the first one's request is lost. The responder runs the second at once and
  // SACKs it, so the requester asks for the first again without waiting for a timeout.
  sim::NicPairConfig config;
  config.mtu = kMtu;
  config.wire.delay = Time::us(20);
  config.device.recovery.kind = GetParam();
  NicPair pair(config);
  constexpr uint32_t kBytes = 8 * kMtu;
  pair.b().memory->fill(kSource, 2 * kBytes, 9);
  bool dropped = false;
  pair.wire().set_drop_filter(0, [&dropped](const world::Packet& p) {
    if (dropped || packet_kind(p.roce.bth.opcode).operation != Operation::read_request) {
      return false;
    }
    dropped = true;
    return true;
  });
  for (uint64_t i = 0; i < 2; ++i) {
    SendWr wr;
    wr.wr_id = i;
    wr.opcode = WrOpcode::rdma_read;
    wr.sge = Sge{kTarget + i * kBytes, kBytes, pair.a().mr->lkey};
    wr.remote_addr = kSource + i * kBytes;
    wr.rkey = pair.b().mr->rkey;
    pair.a().qp->post_send(wr);
  }
  pair.kernel().run();
  const auto done = pair.a().poll();
  ASSERT_EQ(done.size(), 2u);
  for (const auto& wc : done) EXPECT_EQ(wc.status, WcStatus::success);
  EXPECT_EQ(done[0].wr_id, 0u) << "completions stay in posting order";
  EXPECT_TRUE(dropped);
  EXPECT_EQ(pair.a().device->data_path_counters().timeouts, 0u);
  EXPECT_GT(pair.b().device->data_path_counters().sacks_sent, 0u);
  EXPECT_TRUE(same_content(*pair.b().memory, kSource, *pair.a().memory, kTarget, 2 * kBytes));
}

INSTANTIATE_TEST_SUITE_P(Selective, ReadRepair,
                         ::testing::Values(EngineKind::irn, EngineKind::srnic, EngineKind::fasr),
                         [](const auto& param_info) {
                           return std::string(recovery::to_string(param_info.param));
                         });

TEST(ReadRepairGoBackN, AsksForTheRestOfTheReadFromTheFirstLoss) {
  const ReadRun run = read_losing(EngineKind::gbn, 64, {10});
  EXPECT_EQ(run.status, WcStatus::success);
  EXPECT_TRUE(run.intact);
  EXPECT_EQ(run.responses, 64u + (64u - 10u));
}

TEST(ReadRepairGoBackN, AGapWaitsForTheQpTimerWhenConfigured) {
  // read_gap_waits_for_timeout: the responses after the lost one are dropped and nothing is
  // asked again until the QP timer fires; then the rest of the READ comes again from the loss.
  const ReadRun eager = read_losing(EngineKind::gbn, 64, {10});
  EXPECT_EQ(eager.timeouts, 0u);
  const ReadRun waiting = read_losing(EngineKind::gbn, 64, {10}, Time::us(20), true);
  expect_repaired(waiting, 1u, 64u + (64u - 10u));
}

TEST(ReadRepairGoBackN, ARequestMidStreamRewindsTheStream) {
  // The re-request arrives while the stream still runs: the responder restarts from the lost
  // response instead of sending the rest twice.
  const ReadRun run = read_losing(EngineKind::gbn, 512, {20}, Time::us(1));
  EXPECT_EQ(run.status, WcStatus::success);
  EXPECT_TRUE(run.intact);
  EXPECT_LT(run.responses, 512u + (512u - 20u));
  EXPECT_GT(run.responses, 512u);
}

}  // namespace
}  // namespace bifrost::rnic
