// The static partition of a switch buffer (the Bifrost DCI paper's border switch, "Shared
// buffer is disabled in DCI switch"): every frame sits in its own queue's or ingress port's
// share, nothing is borrowed from a pool, one port's share is never another's, the buffer is
// the sum of the shares, and a dynamic PFC threshold (which needs a pool) is refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bifrost/net/shared_buffer.h"
#include "support/error_message.h"

namespace bifrost::net {
namespace {

constexpr uint32_t kFrame = 1000;
constexpr int kLossless = 3;

SharedBufferConfig config_of(BufferPartition partition) {
  SharedBufferConfig c;
  c.total = Bytes(1'000'000);  // a shared partition's size; a static one ignores it
  c.reserved_per_queue = Bytes(4 * kFrame);
  c.alpha = 4;
  c.partition = partition;
  return c;
}

IngressLimits pfc_limits(uint64_t xoff, uint64_t headroom) {
  IngressLimits l;
  l.lossless = true;
  l.xoff = Threshold::fixed(Bytes(xoff));
  l.headroom = Bytes(headroom);
  return l;
}

// Frames admitted from `in` to `out` until the first drop (at most `limit`).
std::vector<Admission> fill(SharedBuffer& b, uint32_t in, uint32_t out, int priority,
                            int limit = 1000) {
  std::vector<Admission> admitted;
  for (int i = 0; i < limit; ++i) {
    const Admission a = b.admit(in, out, priority, kFrame);
    admitted.push_back(a);
    if (!a.admitted) break;
  }
  return admitted;
}

TEST(SharedBufferStatic, ALosslessPortHoldsItsXoffAndHeadroomAndNeverBorrows) {
  SharedBuffer b(config_of(BufferPartition::kStatic), 4);
  b.set_ingress_limits(0, kLossless, pfc_limits(10 * kFrame, 5 * kFrame));
  EXPECT_EQ(b.shared_size(), Bytes(0));
  const auto run = fill(b, 0, 1, kLossless);
  ASSERT_EQ(run.size(), 16u) << "10 frames below xoff, 5 in headroom, then the drop";
  for (int i = 0; i < 10; ++i) EXPECT_EQ(run[i].pool, BufferPool::kPort) << i;
  for (int i = 10; i < 15; ++i) EXPECT_EQ(run[i].pool, BufferPool::kHeadroom) << i;
  EXPECT_EQ(run.back().reason, DropReason::kHeadroomExceeded);
  EXPECT_EQ(b.shared_used(), Bytes(0));
  EXPECT_EQ(b.queue_reserved(1, kLossless), Bytes(0)) << "lossless frames stay at their ingress";
  EXPECT_EQ(b.ingress_usage(0, kLossless).xoff, Bytes(10 * kFrame)) << "no pool caps xoff";

  // The same port in a shared buffer takes the same bytes, but below xoff they come from the
  // egress queue's reservation and then the pool: the difference is the point.
  SharedBuffer shared(config_of(BufferPartition::kShared), 4);
  shared.set_ingress_limits(0, kLossless, pfc_limits(10 * kFrame, 5 * kFrame));
  EXPECT_EQ(fill(shared, 0, 1, kLossless).size(), 16u);
  EXPECT_EQ(shared.shared_used(), Bytes(6 * kFrame));
  EXPECT_EQ(shared.queue_reserved(1, kLossless), Bytes(4 * kFrame));
}

TEST(SharedBufferStatic, OnePortsQueueCannotTakeAnothersReserve) {
  SharedBuffer b(config_of(BufferPartition::kStatic), 4);
  // Lossy frames: egress queue 1's share fills and drops although queue 2's is empty.
  const auto q1 = fill(b, 0, 1, 0);
  ASSERT_EQ(q1.size(), 5u);
  EXPECT_EQ(q1.back().reason, DropReason::kNoBuffer);
  EXPECT_EQ(b.queue_reserved(1, 0), Bytes(4 * kFrame));
  EXPECT_EQ(fill(b, 0, 2, 0).size(), 5u) << "queue 2 still has its whole share";
  EXPECT_EQ(fill(b, 3, 1, 0, 1).back().reason, DropReason::kNoBuffer)
      << "another ingress cannot add to a full queue either";
  // Lossless ingresses: port 0 full does not take from port 1.
  b.set_ingress_limits(0, kLossless, pfc_limits(2 * kFrame, kFrame));
  b.set_ingress_limits(1, kLossless, pfc_limits(2 * kFrame, kFrame));
  EXPECT_EQ(fill(b, 0, 3, kLossless).size(), 4u);
  EXPECT_EQ(fill(b, 1, 3, kLossless).size(), 4u);
  EXPECT_EQ(b.shared_used(), Bytes(0));
}

TEST(SharedBufferStatic, ReleasingEverythingEmptiesEveryShare) {
  SharedBuffer b(config_of(BufferPartition::kStatic), 2);
  b.set_ingress_limits(0, kLossless, pfc_limits(3 * kFrame, 2 * kFrame));
  std::vector<Admission> held = fill(b, 0, 1, kLossless);
  held.pop_back();  // the drop
  const auto lossy = fill(b, 1, 0, 0);
  for (const Admission& a : held) b.release(0, 1, kLossless, kFrame, a.pool);
  for (std::size_t i = 0; i + 1 < lossy.size(); ++i) b.release(1, 0, 0, kFrame, lossy[i].pool);
  EXPECT_EQ(b.used(), Bytes(0));
  EXPECT_EQ(b.ingress_usage(0, kLossless).total(), Bytes(0));
  EXPECT_EQ(b.headroom_used(), Bytes(0));
}

TEST(SharedBufferStatic, ItsSizeIsTheSumOfTheShares) {
  SharedBuffer b(config_of(BufferPartition::kStatic), 2);
  const uint64_t queues = 4 * kFrame * 2 * kPriorities;
  EXPECT_EQ(b.total(), Bytes(queues));
  b.set_ingress_limits(1, kLossless, pfc_limits(7 * kFrame, 3 * kFrame));
  EXPECT_EQ(b.total(), Bytes(queues + 10 * kFrame));
}

TEST(SharedBufferStatic, ADynamicXoffIsRefusedWithTheReason) {
  SharedBuffer b(config_of(BufferPartition::kStatic), 2);
  IngressLimits dynamic = pfc_limits(0, kFrame);
  dynamic.xoff = Threshold::dynamic(4);
  EXPECT_EQ(bifrost::testing::error_of([&] { b.set_ingress_limits(1, kLossless, dynamic); }),
            "port 1 priority 3: a static buffer partition has no shared pool, so a dynamic PFC "
            "threshold (alpha x the free shared bytes) is always 0; give this port a static xoff");
  EXPECT_EQ(b.ingress_usage(1, kLossless).xoff, Bytes(0)) << "the old limits stay";
  SharedBuffer shared(config_of(BufferPartition::kShared), 2);
  EXPECT_EQ(bifrost::testing::error_of([&] { shared.set_ingress_limits(1, kLossless, dynamic); }),
            "no error");
}

}  // namespace
}  // namespace bifrost::net
