// Path choice by ECMP with the known hash (§3.1) on the multipath testbed: each path QP's UDP
// source port is chosen so that the hash puts path i on path link i, and the link each path's
// packets really take (per-link frame counters, both directions) is the predicted one; every
// alias pair is routable; an oracle that never matches is an error, not a silent collision.
#include <gtest/gtest.h>

#include <numeric>

#include "bifrost/core/error.h"
#include "bifrost/sim/ecmp_path_oracle.h"
#include "virtuoso_bed.h"

namespace bifrost::transport::testing {
namespace {

using virtuoso::MpCompletion;
using virtuoso::MpConnection;
using virtuoso::MpOp;
using virtuoso::MpWr;

constexpr uint32_t kPaths = 4;
constexpr uint64_t kBlock = 4096;  // one MTU: a block is one frame

// Path i carries (i + 1) parts of every 10, in whole blocks: each path's frame count differs,
// so a path on another path's link would show.
class WeightedSplit final : public virtuoso::LoadBalancer {
 public:
  std::vector<uint64_t> split(uint64_t total, std::span<const double> capacity,
                              uint64_t block) const override {
    std::vector<uint64_t> out;
    const uint64_t blocks = total / block;
    const uint64_t weights = capacity.size() * (capacity.size() + 1) / 2;
    for (size_t i = 0; i < capacity.size(); ++i) out.push_back(blocks * (i + 1) / weights * block);
    out.back() += total - std::accumulate(out.begin(), out.end(), uint64_t{0});
    return out;
  }
};

uint64_t frames(const net::Channel& ch) {
  return ch.counters().data_frames_delivered;
}

TEST(VirtuosoEcmp, EachPathTakesThePredictedLinkBothWays) {
  VirtuosoBedConfig bc;
  bc.paths = kPaths;
  bc.routing = sim::scenario::RoutingMode::ecmp;
  VirtuosoBed bed(bc);
  virtuoso::VirtuosoConfig config;
  config.paths = kPaths;
  config.probe = false;
  config.block = kBlock;
  config.mtu = kBlock;
  MpConnection a(bed.endpoint(0), config, nullptr, std::make_unique<WeightedSplit>());
  MpConnection b(bed.endpoint(1), config);
  const auto oracle = sim::ecmp_path_oracle(bed.network(), kPaths);
  a.set_path_oracle(oracle);
  b.set_path_oracle(oracle);
  a.connect(b.offer());
  b.connect(a.offer());

  // The prediction: path i's tuple is forwarded over path link i, each way.
  for (uint32_t i = 0; i < kPaths; ++i) {
    const Path& pa = a.paths()[i];
    const Path& pb = b.paths()[i];
    const world::Ipv4 ia = bed.device(0).gid(*pa.gid_index);
    const world::Ipv4 ib = bed.device(1).gid(*pb.gid_index);
    EXPECT_EQ(sim::forwarded_path(bed.network(), ia, ib, pa.source_port).at(1), &bed.path_link(i));
    EXPECT_EQ(sim::forwarded_path(bed.network(), ib, ia, pb.source_port).at(1), &bed.path_link(i));
  }

  // What the switches do: 100 blocks, 10 / 20 / 30 / 40 per path, one frame each.
  std::vector<uint64_t> forward;
  std::vector<uint64_t> backward;
  for (uint32_t i = 0; i < kPaths; ++i) {
    forward.push_back(frames(bed.path_link(i).link->a_to_b()));
    backward.push_back(frames(bed.path_link(i).link->b_to_a()));
  }
  const uint64_t length = 100 * kBlock;
  uint32_t seed = 0;
  const uint64_t src = bed.fresh(0, length, &seed);
  const uint64_t dst = bed.room(1, length);
  bool done = false;
  a.set_completion_handler([&](const MpCompletion& c) { done = c.ok; });
  a.post_send(MpWr{.wr_id = 1,
                   .op = MpOp::write,
                   .local = MessageBuffer{&bed.region(0), src, length},
                   .remote = RemoteAddress{dst, bed.region(1).rkey}});
  ASSERT_TRUE(bed.run_until([&] { return done; }, Time::s(1)));
  EXPECT_TRUE(bed.holds(1, dst, length, seed));
  for (uint32_t i = 0; i < kPaths; ++i) {
    EXPECT_EQ(frames(bed.path_link(i).link->a_to_b()) - forward[i], 10 * (i + 1)) << "path " << i;
    // The responder's ACKs come back on the same link (its QP's port was chosen too).
    EXPECT_GT(frames(bed.path_link(i).link->b_to_a()) - backward[i], 0u) << "path " << i;
  }
}

TEST(VirtuosoEcmp, NoAliasPairIsUnroutable) {
  VirtuosoBedConfig bc;
  bc.paths = kPaths;
  bc.routing = sim::scenario::RoutingMode::ecmp;
  VirtuosoBed bed(bc);
  for (uint32_t sa = 0; sa <= kPaths; ++sa) {
    for (uint32_t da = 0; da <= kPaths; ++da) {
      const auto path =
          sim::forwarded_path(bed.network(), bed.device(0).gid(sa), bed.device(1).gid(da), 49152);
      ASSERT_EQ(path.size(), 3u) << sa << " -> " << da;  // host link, a path link, host link
      EXPECT_EQ(path[1]->link_class, "path");
      EXPECT_EQ(sim::host_of(bed.network(), bed.device(1).gid(da)), 1u);
    }
  }
  EXPECT_EQ(sim::host_of(bed.network(), world::Ipv4::of(192, 168, 0, 1)), std::nullopt);
}

TEST(VirtuosoEcmp, AnOracleThatNeverMatchesIsAnError) {
  const std::vector<world::Ipv4> local{world::Ipv4::of(10, 0, 0, 1)};
  const std::vector<world::Ipv4> peer{world::Ipv4::of(10, 0, 0, 2)};
  const virtuoso::PathOracle nowhere = [](world::Ipv4, world::Ipv4, uint16_t) {
    return std::optional<uint32_t>{};
  };
  EXPECT_THROW(virtuoso::choose_source_ports(nowhere, local, peer, 50000), Error);
  // An oracle keyed on the port: the first port upwards from the start that maps to the path.
  const virtuoso::PathOracle by_port = [](world::Ipv4, world::Ipv4, uint16_t port) {
    return std::optional<uint32_t>{port % 3};
  };
  const std::vector<world::Ipv4> three(3, world::Ipv4::of(10, 0, 0, 1));
  EXPECT_EQ(virtuoso::choose_source_ports(by_port, three, three, 50001),
            (std::vector<uint16_t>{50001, 50002, 50003}));
  // From the range's top the search wraps to its bottom.
  EXPECT_EQ(virtuoso::choose_source_ports(by_port, three, three, 65535),
            (std::vector<uint16_t>{65535, 49153, 49154}));
}

}  // namespace
}  // namespace bifrost::transport::testing
