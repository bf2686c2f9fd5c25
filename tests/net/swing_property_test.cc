// SWING's guarantee in the packet simulator. For random drain patterns behind relay B (the DCI
// switch's sink-facing egress ready or closed for random periods, 1 ms stops included, at a
// random drain rate), with relay B's long-link buffer exactly swing_relay_buffer, random fibre
// jitter, and lossy reverse traffic on the long link in half the runs (the relayed pauses wait
// behind its frames):
//   - nothing is dropped anywhere, and relay B never holds more than its buffer;
//   - the queue never runs dry while the egress is ready: in every ready period the DCI switch
//     sends at least its drain rate x the period (frame bytes) minus two frames, the same
//     bound Bifrost DCI's test holds. The relay's buffer is what covers the round trip after
//     a resume: it holds rate x (the closed time within the last relay round trip).
#include <gtest/gtest.h>

#include <vector>

#include "bifrost/core/rng.h"
#include "net/swing_fixture.h"
#include "support/property.h"

namespace bifrost::net {
namespace {

using testing::kDciPrio;
using testing::kMaxFrame;
using testing::SwingBench;

struct Outcome {
  uint64_t drops = 0;
  Bytes peak;
  Bytes buffer;
  uint64_t pauses_relayed = 0;
  uint64_t resumes_relayed = 0;
  std::vector<testing::ReadyPeriod> ready;
  Rate drain_rate;
};

Outcome run(uint64_t seed, Time horizon) {
  RandomStream rng(seed, "swing-drain");
  const Rate rates[] = {Rate::Gbps(25), Rate::Gbps(50), Rate::Gbps(100)};
  const Rate drain_rate = rates[rng.uniform_int(0, 2)];
  const Time jitter = Time::ns(static_cast<int64_t>(rng.uniform_int(0, 5)));
  SwingBench bench(drain_rate, jitter, seed);
  const SwingPoints swing = bench.install_swing();
  bench.backlog_sender();
  if (rng.uniform_int(0, 1) == 1) bench.reverse_traffic();

  Outcome out;
  out.drain_rate = drain_rate;
  bifrost::net::testing::random_drain(
      bench.net.kernel, *bench.drain, rng, horizon, [&](Time start, Time end, bool before) {
        if (before) {
          out.ready.push_back(testing::ReadyPeriod{start, end, bench.drained(), 0});
        } else {
          out.ready.back().drained_at_end = bench.drained();
        }
      });
  out.drops = bench.drops();
  out.peak = bench.relay_peak();
  out.buffer = swing.relay->buffer();
  out.pauses_relayed = swing.relay->counters().pauses_relayed[kDciPrio];
  out.resumes_relayed = swing.relay->counters().resumes_relayed[kDciPrio];
  return out;
}

TEST(SwingRelay, BufferNeverOverflowsAndTheQueueNeverRunsDryForRandomDrainPatterns) {
  for (uint64_t seed : bifrost::testing::property_seeds(6)) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    const Outcome o = run(seed, Time::ms(4));
    EXPECT_EQ(o.drops, 0u);
    EXPECT_LE(o.peak, o.buffer);
    EXPECT_GT(o.pauses_relayed, 0u) << "the pattern had zero-drain periods";
    EXPECT_GT(o.resumes_relayed, 0u);
    // The first bytes arrive after the one-way delay.
    testing::expect_never_dry(o.ready, o.drain_rate, Time::us(50));
  }
}

}  // namespace
}  // namespace bifrost::net
