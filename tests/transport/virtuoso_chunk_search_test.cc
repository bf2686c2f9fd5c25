// Virtuoso's chunk (WR size) search on a lossy multipath network (§3.5, Table 2): it
// terminates; the size it settles on gives no RETRY_EXC in the next 100 WRs; and the next size
// up does fail within kFailWithin WRs, so it found a threshold rather than the smallest chunk.
//
// Pinned (the threshold depends on each): 2 paths of 1 Gb/s behind 10 Gb/s hosts, no PFC, a
// 300 KB shared switch buffer (dynamic threshold alpha = 1: each of the two congested path
// ports may queue about a third of it), the NIC's go-back-N engine, RC retry_cnt = 1 and
// timeout 7 (524 us), WRs in iterations (both paths' WRs start together). A WR that overflows
// its port loses packets; go-back-N resends behind a full queue of packets the receiver
// discards, so no ACK comes for longer than the timeout, twice, and the WR fails with
// RETRY_EXC. Its QP is recovered in place (5 ms, rnic::QpTransitionCosts) and the WR goes
// again. With these values WRs up to 400 KiB never failed and from 432 KiB on always failed in
// a sweep (16 KiB steps, 40 WRs each; 416 KiB failed 7 times): a 32 KiB linear step and 8
// successes per step put the search below the boundary.
#include <gtest/gtest.h>

#include "virtuoso_bed.h"

namespace bifrost::transport::testing {
namespace {

using virtuoso::ChunkSearch;
using virtuoso::MpCompletion;
using virtuoso::MpConnection;
using virtuoso::MpOp;
using virtuoso::MpWr;

constexpr uint32_t kPaths = 2;
constexpr uint64_t kStep = 32 * 1024;
// WRs of the next size up before one fails (8 in this set-up: the search settles at 384 KiB).
constexpr uint64_t kFailWithin = 16;

VirtuosoBedConfig lossy_bed() {
  VirtuosoBedConfig bed;
  bed.paths = kPaths;
  bed.switch_buffer = Bytes(300'000);
  bed.device.recovery.kind = rnic::recovery::EngineKind::gbn;
  return bed;
}

virtuoso::VirtuosoConfig search_config() {
  virtuoso::VirtuosoConfig c;
  c.paths = kPaths;
  c.probe = false;
  c.rc_retry_cnt = 1;
  c.rc_timeout = 7;
  c.chunk_search.enabled = true;
  c.chunk_search.initial = 16 * 1024;
  c.chunk_search.linear_step = kStep;
  c.chunk_search.successes_per_step = 8;
  return c;
}

// MP WRITEs of `length` from side 0, one after another, until `stop()` or `limit` of them.
template <typename Stop>
uint64_t write_until(VirtuosoBed& bed, MpConnection& c, uint64_t length, uint64_t limit,
                     Stop stop) {
  uint64_t done = 0;
  bool open = false;
  c.set_completion_handler([&](const MpCompletion& d) {
    EXPECT_TRUE(d.ok);
    open = false;
    ++done;
  });
  uint32_t seed = 0;
  const uint64_t src = bed.fresh(0, length, &seed);
  const uint64_t dst = bed.room(1, length);
  for (uint64_t i = 0; i < limit && !stop(); ++i) {
    open = true;
    c.post_send(MpWr{.wr_id = i,
                     .op = MpOp::write,
                     .local = MessageBuffer{&bed.region(0), src, length},
                     .remote = RemoteAddress{dst, bed.region(1).rkey}});
    EXPECT_TRUE(bed.run_until([&] { return !open; }, Time::s(5))) << "MP WR " << i;
    EXPECT_TRUE(bed.holds(1, dst, length, seed));
  }
  return done;
}

TEST(VirtuosoChunkSearch, FindsAThresholdOnALossyMultipathNetwork) {
  uint64_t chosen = 0;
  {
    VirtuosoBed bed(lossy_bed());
    auto pair = bed.connect(search_config());
    MpConnection& c = *pair.side[0];
    const auto& search = dynamic_cast<const ChunkSearch&>(c.chunk_policy());
    write_until(bed, c, 4'000'000, 200,
                [&] { return search.phase() == ChunkSearch::Phase::settled; });
    ASSERT_EQ(search.phase(), ChunkSearch::Phase::settled) << "the search did not terminate";
    chosen = search.chunk();
    EXPECT_GE(c.stats().retry_exceeded, 2u);  // one to leave the binary phase, one to settle
    EXPECT_GE(c.stats().recoveries, 2u);
    EXPECT_GT(chosen, search_config().chunk_search.initial);
    RecordProperty("chosen_chunk", std::to_string(chosen));
  }
  // The chosen size: 100 WRs (at least) without RETRY_EXC.
  {
    VirtuosoBed bed(lossy_bed());
    virtuoso::VirtuosoConfig config = search_config();
    config.chunk_search.enabled = false;
    MpConnection a(bed.endpoint(0), config, nullptr, {},
                   std::make_unique<virtuoso::FixedChunk>(chosen, 1, true));
    MpConnection b(bed.endpoint(1), config);
    a.connect(b.offer());
    b.connect(a.offer());
    write_until(bed, a, chosen * kPaths * 10, 11, [&] { return a.stats().wrs_posted >= 100; });
    EXPECT_GE(a.stats().wrs_posted, 100u);
    EXPECT_EQ(a.stats().retry_exceeded, 0u) << "chunk " << chosen;
  }
  // The next size up fails within kFailWithin WRs.
  {
    VirtuosoBed bed(lossy_bed());
    virtuoso::VirtuosoConfig config = search_config();
    config.chunk_search.enabled = false;
    MpConnection a(bed.endpoint(0), config, nullptr, {},
                   std::make_unique<virtuoso::FixedChunk>(chosen + kStep, 1, true));
    MpConnection b(bed.endpoint(1), config);
    a.connect(b.offer());
    b.connect(a.offer());
    write_until(bed, a, (chosen + kStep) * kPaths * 4, 20,
                [&] { return a.stats().retry_exceeded > 0; });
    EXPECT_GE(a.stats().retry_exceeded, 1u) << "chunk " << chosen + kStep << " never failed";
    EXPECT_LE(a.stats().wrs_posted - a.stats().wrs_reposted, kFailWithin);
  }
}

}  // namespace
}  // namespace bifrost::transport::testing
