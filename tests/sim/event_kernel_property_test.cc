// Property test: the kernel runs events in exactly the order of a reference model (a sorted
// map keyed by time, then scheduling sequence) under random scheduling from inside callbacks,
// equal timestamps, far-future timers, cancellation and run_until boundaries.
#include <gtest/gtest.h>

#include <map>
#include <utility>
#include <vector>

#include "bifrost/core/rng.h"
#include "bifrost/sim/event_kernel.h"
#include "support/property.h"

namespace bifrost::sim {
namespace {

struct Harness {
  explicit Harness(uint64_t seed) : rng(seed, "event-kernel-property") {}

  RandomStream rng;
  EventKernel kernel;
  std::map<std::pair<int64_t, uint64_t>, int> reference;  // (time, sequence) -> event id
  std::vector<world::TimerId> ids;
  std::vector<std::pair<int64_t, uint64_t>> keys;
  std::vector<int> ran;
  uint64_t sequence = 0;
  int budget = 4000;

  int64_t increment() {
    switch (rng.uniform_int(0, 3)) {
      case 0:
        return 0;  // same time as now
      case 1:
        return static_cast<int64_t>(rng.uniform_int(1, 64));  // near: lands in the run
      case 2:
        return static_cast<int64_t>(rng.uniform_int(1, 1'000'000));
      default:
        return static_cast<int64_t>(rng.uniform_int(1, uint64_t{1} << 40));  // far
    }
  }

  void schedule(int64_t when) {
    const int id = static_cast<int>(ids.size());
    const auto key = std::make_pair(when, sequence++);
    reference[key] = id;
    keys.push_back(key);
    ids.push_back(kernel.at(Time::ps(when), [this, id] { on_run(id); }));
  }

  void on_run(int id) {
    ran.push_back(id);
    if (reference.empty() || reference.begin()->second != id) {
      ADD_FAILURE() << "event " << id << " ran at t=" << kernel.now().picoseconds()
                    << " out of order";
      kernel.stop();
      return;
    }
    EXPECT_EQ(reference.begin()->first.first, kernel.now().picoseconds());
    reference.erase(reference.begin());
    const auto children = budget > 0 ? rng.uniform_int(0, 2) : 0;
    for (uint64_t i = 0; i < children; ++i, --budget) {
      schedule(kernel.now().picoseconds() + increment());
    }
    if (rng.bernoulli(0.2) && !ids.empty()) cancel_random();
  }

  void cancel_random() {
    const auto victim = rng.uniform_int(0, ids.size() - 1);
    const bool pending = reference.count(keys[victim]) > 0;
    EXPECT_EQ(kernel.cancel(ids[victim]), pending);
    reference.erase(keys[victim]);
  }
};

TEST(EventKernelProperty, MatchesReferenceModel) {
  for (uint64_t seed : testing::property_seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    Harness h(seed);
    for (int i = 0; i < 200; ++i) h.schedule(h.increment());
    while (!h.reference.empty() && !HasFailure()) {
      ASSERT_GT(h.kernel.pending(), 0u) << "kernel ran dry while the reference has events";
      // Alternate whole runs with bounded ones, and schedule between them at times that may
      // precede the event the kernel peeked at.
      const Time end = h.kernel.now() + Time::ps(static_cast<int64_t>(h.rng.uniform_int(0, 5000)));
      h.kernel.run_until(end);
      EXPECT_EQ(h.kernel.now(), end);
      if (h.budget > 0) {
        h.schedule(h.kernel.now().picoseconds() + h.increment());
        --h.budget;
      }
      if (h.rng.bernoulli(0.1)) h.kernel.run();
    }
    EXPECT_EQ(h.kernel.pending(), 0u);
    EXPECT_FALSE(h.kernel.step());
  }
}

}  // namespace
}  // namespace bifrost::sim
