// Theorem 1 of Bifrost DCI in the packet simulator. For random drain patterns (the sink-facing
// egress is ready or closed for random periods, long zero-drain periods and abrupt restarts
// included, at a random drain link rate) and H >= Delta + 2 x Rs x T:
//   - Delta + Rs x T - S <= L + F <= H at every slot (slack S = one frame: a slot's releases
//     are counted when a frame starts, so one slot may drain Rs x T + S; the upper bound is
//     exact because the pause closes one frame time early and quanta round up, docs/net.md);
//   - the buffer never overflows: no drop, and the port's peak occupancy stays within H;
//   - the queue never runs dry while the egress is ready: in every ready period the egress
//     sends at least its link rate x the period's length (in frame bytes, without the wire
//     overhead) minus two frames (one in flight at each end of the period).
#include <gtest/gtest.h>

#include "bifrost/core/rng.h"
#include "net/dci_fixture.h"
#include "support/property.h"

namespace bifrost::net {
namespace {

using testing::DciBench;
using testing::kDciPrio;
using testing::kMaxFrame;

struct Outcome {
  uint64_t drops = 0;
  Bytes peak;
  DciPriorityCounters counters;
  int64_t h = 0;  // H, what the algorithm grants up to (the buffer is H + k x S)
  int64_t lower = 0;
  std::vector<testing::ReadyPeriod> ready;
  Rate drain_rate;
};

// Ready / closed periods up to `horizon`: 0..300 us each, one in four closed ones 1 ms long.
Outcome run(uint64_t seed, Time horizon) {
  RandomStream rng(seed, "dci-drain");
  const Rate rates[] = {Rate::Gbps(25), Rate::Gbps(50), Rate::Gbps(100)};
  const Rate drain_rate = rates[rng.uniform_int(0, 2)];
  DciBench bench(drain_rate);
  DciConfig config;
  config.slot = Time::us(rng.uniform_int(2, 8));
  config.buffer = dci_min_buffer(bench.link(), config.slot, config.leak_every) +
                  Bytes(static_cast<uint64_t>(rng.uniform_int(0, 50'000)));
  const DciPair dci = install_dci(bench.net.kernel, config, bench.sw, 0, bench.sender.nic());
  bench.backlog_sender();

  Outcome out;
  out.drain_rate = drain_rate;
  bench.random_drain(rng, horizon, [&](Time start, Time end, bool before) {
    if (before) {
      out.ready.push_back(testing::ReadyPeriod{start, end, bench.drained(), 0});
    } else {
      out.ready.back().drained_at_end = bench.drained();
    }
  });
  out.drops = bench.drops();
  out.peak = bench.sw.buffer().peak_headroom(0, kDciPrio);
  out.counters = dci.ingress->counters(kDciPrio);
  out.h = static_cast<int64_t>(dci.ingress->target().count());
  out.lower = static_cast<int64_t>((dci.ingress->delta() + dci.ingress->per_slot()).count());
  return out;
}

TEST(DciTheorem, BoundsHoldNoOverflowAndNoStarvationForRandomDrainPatterns) {
  for (uint64_t seed : bifrost::testing::property_seeds(8)) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    const Outcome o = run(seed, Time::ms(4));
    EXPECT_EQ(o.drops, 0u);
    EXPECT_LE(static_cast<int64_t>(o.peak.count()), o.h);  // the k x S leak headroom unused
    EXPECT_LE(o.counters.max_sum, o.h);
    EXPECT_GE(o.counters.min_sum, o.lower - int64_t{kMaxFrame});
    EXPECT_GT(o.counters.full_pauses, 0u) << "the pattern had zero-drain periods";
    // The first bytes arrive after the one-way delay.
    testing::expect_never_dry(o.ready, o.drain_rate, Time::us(50));
  }
}

}  // namespace
}  // namespace bifrost::net
