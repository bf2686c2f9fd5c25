// The kernel's radix queue against a reference ordered map, including the paths the kernel
// reaches rarely: pushes below `last_` after a peek or a purge (rebase), pushes into the sorted
// run, and bulk removal.
#include "bifrost/sim/detail/radix_queue.h"

#include <gtest/gtest.h>

#include <map>
#include <utility>

#include "bifrost/core/rng.h"
#include "support/property.h"

namespace bifrost::sim::detail {
namespace {

using Reference = std::map<std::pair<uint64_t, uint32_t>, uint32_t>;  // (time, seq) -> id

void expect_pop_matches(RadixQueue& q, Reference& ref) {
  ASSERT_FALSE(ref.empty());
  ASSERT_FALSE(q.empty());
  const auto item = q.pop();
  EXPECT_EQ(item.time, ref.begin()->first.first);
  EXPECT_EQ(item.id, ref.begin()->second);
  ref.erase(ref.begin());
}

TEST(RadixQueue, EqualTimesPopInInsertionOrder) {
  RadixQueue q;
  for (uint32_t i = 0; i < 300; ++i) q.push(1000 + (i % 3), i);
  for (uint32_t t = 0; t < 3; ++t) {
    for (uint32_t i = t; i < 300; i += 3) {
      const auto item = q.pop();
      EXPECT_EQ(item.time, 1000 + t);
      EXPECT_EQ(item.id, i);
    }
  }
  EXPECT_TRUE(q.empty());
}

TEST(RadixQueue, SortsRunsSpanningMoreThan2To56Picoseconds) {
  RadixQueue q;
  const uint64_t big = uint64_t{1} << 61;
  const uint64_t times[] = {big + 9, 5, big, big + 9, uint64_t{1} << 58, 5, big - 1};
  Reference ref;
  for (uint32_t i = 0; i < 7; ++i) {
    q.push(times[i], i);
    ref[{times[i], i}] = i;
  }
  while (!ref.empty()) expect_pop_matches(q, ref);
  EXPECT_TRUE(q.empty());
}

TEST(RadixQueue, PushBelowLastAfterRunIsPurgedIsRebased) {
  RadixQueue q;
  for (uint32_t i = 0; i < 10; ++i) q.push(100 + i, i);
  q.push(5000, 99);
  EXPECT_EQ(q.top().time, 100u);  // builds a run from the lowest bucket
  q.remove_if([](const RadixQueue::Item& item) { return item.time < 1000; });
  EXPECT_EQ(q.size(), 1u);
  q.push(120, 7);  // earlier than the queue's base time after the purge
  EXPECT_EQ(q.pop().id, 7u);
  EXPECT_EQ(q.pop().id, 99u);
  EXPECT_TRUE(q.empty());
}

TEST(RadixQueue, MatchesReferenceUnderRandomOperations) {
  for (uint64_t seed : testing::property_seeds()) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    RandomStream rng(seed, "radix-queue");
    RadixQueue q;
    Reference ref;
    uint32_t seq = 0;
    uint64_t now = 0;
    for (int op = 0; op < 20000 && !HasFailure(); ++op) {
      const auto dice = rng.uniform_int(0, 99);
      if (dice < 50 || ref.empty()) {
        // Mostly monotone like the kernel, sometimes earlier than anything popped so far.
        const uint64_t base = rng.bernoulli(0.05) ? rng.uniform_int(0, now) : now;
        const uint64_t span = uint64_t{1} << rng.uniform_int(0, 40);
        const uint64_t t = base + rng.uniform_int(0, span);
        q.push(t, seq);
        ref[{t, seq}] = seq;
        ++seq;
      } else if (dice < 95) {
        now = ref.begin()->first.first;
        expect_pop_matches(q, ref);
      } else if (dice < 98) {
        EXPECT_EQ(q.top().time, ref.begin()->first.first);  // a peek that may build a run
      } else {
        const uint32_t modulus = static_cast<uint32_t>(rng.uniform_int(2, 5));
        q.remove_if([&](const RadixQueue::Item& item) { return item.id % modulus == 0; });
        std::erase_if(ref, [&](const auto& kv) { return kv.second % modulus == 0; });
      }
      EXPECT_EQ(q.size(), ref.size());
    }
    while (!ref.empty() && !HasFailure()) expect_pop_matches(q, ref);
    EXPECT_TRUE(q.empty());
  }
}

}  // namespace
}  // namespace bifrost::sim::detail
