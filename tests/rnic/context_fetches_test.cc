// Overlapping QP-context fetches: each takes a free slot at once, and a fetch that finds every
// slot busy waits for the earliest to free.
#include "bifrost/rnic/context_fetches.h"

#include <gtest/gtest.h>

#include "bifrost/core/error.h"

namespace bifrost::rnic {
namespace {

constexpr Time kFetch = Time::us(1);

TEST(ContextFetches, FetchesUpToTheSlotCountOverlap) {
  ContextFetches fetches(4);
  // Four misses 10 ns apart: all in flight together, each done 1 us after its own request.
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(fetches.start(Time::ns(10) * k, kFetch), Time::ns(10) * k + kFetch) << k;
  }
  EXPECT_EQ(fetches.queued(), 0u);
  // The fifth waits for the first slot to free (at 1 us), then takes the full fetch time.
  EXPECT_EQ(fetches.start(Time::ns(40), kFetch), kFetch + kFetch);
  EXPECT_EQ(fetches.queued(), 1u);
  // After every fetch has completed, a new one starts at once.
  EXPECT_EQ(fetches.start(Time::us(5), kFetch), Time::us(6));
  EXPECT_EQ(fetches.queued(), 1u);
}

TEST(ContextFetches, OneSlotServesMissesOneAfterAnother) {
  ContextFetches fetches(1);
  Time done = Time::zero();
  for (int k = 0; k < 5; ++k) done = fetches.start(Time::zero(), kFetch);
  EXPECT_EQ(done, kFetch * 5);
  EXPECT_EQ(fetches.queued(), 4u);
}

TEST(ContextFetches, RejectsZeroSlots) {
  EXPECT_THROW(ContextFetches(0), Error);
}

}  // namespace
}  // namespace bifrost::rnic
