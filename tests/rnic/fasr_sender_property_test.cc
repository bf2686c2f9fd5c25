// FaSR's sender (fasr_requester.h, the paper's section III-B) on two soft RNICs under random
// loss in both directions, checked against the paper's rules at every packet it sends, not only
// at the end:
// - no state in the pool before a SACK has reached it, then the sending NIC's pool holds exactly
//   its unit and bitmap blocks (nothing private);
// - bitmap blocks only on the slow path, and the slow path only while the lost-cnt last carried
//   is above 1 (or overflowed);
// - lost-cnt is never counted locally: it is never above what the receiver's SACKs and AACKs
//   carried, and the bitmap is never consulted while no carried lost-cnt exceeded 1;
// and at the end every byte delivered exactly once and both pools free. Seeds vary the loss
// rate, the message sizes, the first PSN (some runs cross the 24-bit wrap) and the SR header
// size; the aggregate checks make sure the runs exercised the fast path, the slow path, the
// bitmap query and the timeout.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "bifrost/core/rng.h"
#include "bifrost/wire/headers.h"
#include "fasr_pair_support.h"
#include "support/property.h"

namespace bifrost::rnic {
namespace {

using namespace bifrost::rnic::testing;

constexpr uint64_t kSrc = NicPair::kBufferBase;
constexpr uint64_t kDst = NicPair::kBufferBase + (uint64_t{1} << 30);

// What of the receiver's recovery state has been put on the wire towards the sender and not
// dropped: the sender can have seen at most this.
struct Carried {
  uint64_t sacks = 0;     // SACKs not dropped
  uint8_t max_lost = 0;   // the highest lost-cnt a SACK or AACK carried
  bool overflow = false;  // some SACK or AACK carried the overflow flag
};

// What a run saw, for the aggregate checks.
struct Seen {
  uint64_t lost = 0;
  uint64_t sender_units = 0;
  uint32_t sender_peak_blocks = 0;
  uint64_t bitmap_queries = 0;
  uint64_t timeouts = 0;
  uint64_t checks = 0;
};

void check_sender(const NicPair::Side& a, const Carried& carried, Seen& seen) {
  const recovery::FasrRequester& s = sender_of(a);
  const recovery::FasrPoolUsage& pool = pool_of(a).usage();
  ++seen.checks;
  if (s.recovering()) {
    ASSERT_GT(carried.sacks, 0u) << "a unit before any SACK reached the sender";
  }
  // The sending NIC's pool holds the sender's state and nothing else (a's responder receives
  // no requests).
  ASSERT_EQ(pool.units_in_use, s.recovering() ? 1u : 0u);
  ASSERT_EQ(pool.blocks_in_use, s.blocks());
  if (s.blocks() > 0) {
    ASSERT_TRUE(s.slow()) << "bitmap blocks off the slow path";
  }
  if (s.slow()) {
    ASSERT_TRUE(s.lost_cnt() > 1 || s.overflow())
        << "slow path with lost-cnt " << int{s.lost_cnt()};
  }
  ASSERT_LE(s.lost_cnt(), carried.max_lost) << "a lost-cnt the receiver never sent";
  if (s.overflow()) {
    ASSERT_TRUE(carried.overflow);
  }
  if (carried.max_lost <= 1 && !carried.overflow) {
    ASSERT_EQ(s.bitmap_queries(), 0u) << "bitmap consulted with lost-cnt at most 1";
  }
}

Seen run_seed(uint64_t seed) {
  RandomStream random(seed, "fasr_sender_property");
  NicPairConfig config;
  config.device.recovery.kind = recovery::EngineKind::fasr;
  config.device.recovery.lean_sr_header = random.bernoulli(0.5);
  // Every other seed starts just before the PSN wrap.
  config.first_psn = seed % 2 == 0
                         ? wire::kPsnMask - static_cast<uint32_t>(random.uniform_int(0, 300))
                         : static_cast<uint32_t>(random.uniform_int(0, 1 << 20));
  const double loss = 0.002 + random.uniform() * 0.048;
  NicPair pair(config);
  auto& a = pair.a();
  auto& b = pair.b();
  SCOPED_TRACE(::testing::Message() << "loss " << loss << ", first PSN " << config.first_psn);

  // The wire's drop filters see every packet as it leaves: they drop at random themselves (the
  // wire's own loss is off) and check the sender whenever it sends.
  struct Probe {
    const NicPair::Side* a;
    double loss;
    RandomStream data_loss;
    RandomStream ack_loss;
    Carried carried;
    Seen seen;
  } probe{&a, loss, RandomStream(seed, "data_loss"), RandomStream(seed, "ack_loss"), {}, {}};
  pair.wire().set_drop_filter(0, [&probe](const world::Packet&) {
    if (!::testing::Test::HasFatalFailure()) check_sender(*probe.a, probe.carried, probe.seen);
    return probe.data_loss.bernoulli(probe.loss);
  });
  pair.wire().set_drop_filter(1, [&probe](const world::Packet& p) {
    if (probe.ack_loss.bernoulli(probe.loss)) return true;
    if (p.roce.bth.opcode == wire::Opcode::kRcAcknowledge && p.roce.sr.present) {
      const wire::FasrSackInfo info = wire::decode_fasr_info(p.roce.sr.key);
      if (!info.fnack) {
        Carried& c = probe.carried;
        if (wire::ack_kind(p.roce.aeth) == wire::AckKind::kNak) ++c.sacks;
        c.max_lost = std::max(c.max_lost, info.lost_cnt);
        c.overflow = c.overflow || info.overflow;
      }
    }
    return false;
  });

  // WRITEs of random sizes, back to back: a window of up to 128 packets in flight.
  const int writes = static_cast<int>(random.uniform_int(4, 12));
  std::vector<std::pair<uint64_t, uint32_t>> spans;
  uint64_t offset = 0;
  for (int i = 0; i < writes; ++i) {
    const auto length = static_cast<uint32_t>(random.uniform_int(1, 96 * 1024));
    a.memory->fill(kSrc + offset, length, 1 + static_cast<uint32_t>(i));
    a.qp->post_send(make_remote(static_cast<uint64_t>(i), WrOpcode::rdma_write, a, kSrc + offset,
                                length, kDst + offset, b.mr->rkey));
    spans.emplace_back(offset, length);
    offset += length + 4096;
  }
  pair.kernel().run();
  Seen& seen = probe.seen;
  if (::testing::Test::HasFatalFailure()) return seen;

  const auto done = a.poll();
  EXPECT_EQ(done.size(), spans.size());
  for (const auto& wc : done) EXPECT_EQ(wc.status, WcStatus::success) << wc.wr_id;
  for (const auto& [off, length] : spans) {
    EXPECT_TRUE(same_content(*a.memory, kSrc + off, *b.memory, kDst + off, length)) << off;
    EXPECT_TRUE(untouched(*b.memory, kDst + off + length, 4096)) << off;
  }
  const recovery::FasrRequester& s = sender_of(a);
  EXPECT_FALSE(s.recovering());
  for (const NicPair::Side* side : {&a, &b}) {
    EXPECT_EQ(pool_of(*side).usage().units_in_use, 0u);
    EXPECT_EQ(pool_of(*side).usage().blocks_in_use, 0u);
  }
  seen.lost = pair.wire().counters(0).lost + pair.wire().counters(1).lost;
  seen.sender_units = pool_of(a).usage().sender_unit_allocations;
  seen.sender_peak_blocks = pool_of(a).usage().peak_blocks;
  seen.bitmap_queries = s.bitmap_queries();
  seen.timeouts = a.device->data_path_counters().timeouts;
  return seen;
}

TEST(FasrSenderProperty, FollowsThePapersRulesAtEveryPacketUnderRandomLoss) {
  Seen total;
  uint64_t fast_only_runs = 0;  // runs whose sender took units but never a bitmap block
  for (const uint64_t seed : bifrost::testing::property_seeds(16)) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    const Seen seen = run_seed(seed);
    if (::testing::Test::HasFailure()) return;
    total.lost += seen.lost;
    total.sender_units += seen.sender_units;
    total.sender_peak_blocks = std::max(total.sender_peak_blocks, seen.sender_peak_blocks);
    total.bitmap_queries += seen.bitmap_queries;
    total.timeouts += seen.timeouts;
    total.checks += seen.checks;
    if (seen.sender_units > 0 && seen.sender_peak_blocks == 0) ++fast_only_runs;
  }
  // The runs exercised what the checks are about.
  EXPECT_GT(total.lost, 0u);
  EXPECT_GT(total.checks, 0u);
  EXPECT_GT(total.sender_units, 0u);        // the sender took units from the pool
  EXPECT_GT(total.sender_peak_blocks, 0u);  // and the slow path's blocks
  EXPECT_GT(fast_only_runs, 0u);            // some runs recovered on the fast path alone
  EXPECT_GT(total.timeouts, 0u);
  EXPECT_GT(total.bitmap_queries, 0u);  // a timeout with lost-cnt > 1 read the bitmap
}

}  // namespace
}  // namespace bifrost::rnic
