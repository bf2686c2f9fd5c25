#include "bifrost/sim/event_kernel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "bifrost/core/rng.h"

namespace bifrost::sim {
namespace {

TEST(EventKernel, RunsInTimeOrder) {
  EventKernel k;
  std::vector<int64_t> seen;
  for (int64_t t : {50, 10, 30, 20, 40}) {
    k.at(Time::ns(t), [&seen, &k] { seen.push_back(k.now().picoseconds() / 1000); });
  }
  k.run();
  EXPECT_EQ(seen, (std::vector<int64_t>{10, 20, 30, 40, 50}));
  EXPECT_EQ(k.executed(), 5u);
  EXPECT_EQ(k.pending(), 0u);
}

TEST(EventKernel, EqualTimesRunInInsertionOrder) {
  EventKernel k;
  std::vector<int> seen;
  for (int i = 0; i < 100; ++i) k.at(Time::us(1), [&seen, i] { seen.push_back(i); });
  k.run();
  ASSERT_EQ(seen.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(seen[i], i);
}

TEST(EventKernel, EventsScheduledFromCallbacksAtSameTimeRunAfterEarlierOnes) {
  EventKernel k;
  std::vector<char> seen;
  k.at(Time::ns(5), [&] {
    seen.push_back('a');
    k.at(k.now(), [&] { seen.push_back('c'); });
  });
  k.at(Time::ns(5), [&] { seen.push_back('b'); });
  k.run();
  EXPECT_EQ(seen, (std::vector<char>{'a', 'b', 'c'}));
}

TEST(EventKernel, PastTimesAreClampedToNow) {
  EventKernel k;
  Time fired = Time::max();
  k.at(Time::us(10), [&] { k.at(Time::us(1), [&] { fired = k.now(); }); });
  k.run();
  EXPECT_EQ(fired, Time::us(10));
}

TEST(EventKernel, CancelPreventsRunAndReportsState) {
  EventKernel k;
  int runs = 0;
  auto keep = k.at(Time::ns(1), [&] { ++runs; });
  auto drop = k.at(Time::ns(2), [&] { runs += 100; });
  EXPECT_EQ(k.pending(), 2u);
  EXPECT_TRUE(k.cancel(drop));
  EXPECT_FALSE(k.cancel(drop)) << "second cancel of the same id";
  EXPECT_EQ(k.pending(), 1u);
  k.run();
  EXPECT_EQ(runs, 1);
  EXPECT_FALSE(k.cancel(keep)) << "cancel after it ran";
  EXPECT_FALSE(k.cancel(world::TimerId{})) << "the empty id names nothing";
}

TEST(EventKernel, StaleIdDoesNotCancelReusedSlot) {
  EventKernel k;
  auto first = k.at(Time::ns(1), [] {});
  k.run();
  int runs = 0;
  k.at(Time::ns(2), [&] { ++runs; });  // reuses the freed slot
  EXPECT_FALSE(k.cancel(first));
  k.run();
  EXPECT_EQ(runs, 1);
}

TEST(EventKernel, CallbackCancellingItselfIsNoOp) {
  EventKernel k;
  world::TimerId self;
  int runs = 0;
  self = k.at(Time::ns(1), [&] {
    ++runs;
    EXPECT_FALSE(k.cancel(self));
  });
  k.run();
  EXPECT_EQ(runs, 1);
}

TEST(EventKernel, RunUntilStopsAtBoundaryInclusiveAndAdvancesClock) {
  EventKernel k;
  std::vector<int> seen;
  k.at(Time::us(1), [&] { seen.push_back(1); });
  k.at(Time::us(2), [&] { seen.push_back(2); });
  k.at(Time::us(3), [&] { seen.push_back(3); });
  k.run_until(Time::us(2));
  EXPECT_EQ(seen, (std::vector<int>{1, 2}));
  EXPECT_EQ(k.now(), Time::us(2));
  k.run_until(Time::ms(1));
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(k.now(), Time::ms(1)) << "clock advances to the end even with no events";
}

TEST(EventKernel, StopReturnsAfterCurrentEvent) {
  EventKernel k;
  int runs = 0;
  k.at(Time::ns(1), [&] {
    ++runs;
    k.stop();
  });
  k.at(Time::ns(2), [&] { ++runs; });
  k.run();
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(k.pending(), 1u);
  k.run();
  EXPECT_EQ(runs, 2);
}

TEST(EventKernel, StepRunsOneLiveEvent) {
  EventKernel k;
  int runs = 0;
  auto a = k.at(Time::ns(1), [&] { runs += 1; });
  k.at(Time::ns(2), [&] { runs += 10; });
  k.cancel(a);
  EXPECT_TRUE(k.step());
  EXPECT_EQ(runs, 10);
  EXPECT_FALSE(k.step());
}

// Many re-armed timers (the RTO pattern): the cancelled entries must not accumulate, and the
// surviving timers must still fire in order.
TEST(EventKernel, RearmedTimersArePurgedAndOrderHolds) {
  EventKernel k;
  constexpr int kTimers = 64;
  std::vector<world::TimerId> ids(kTimers);
  std::vector<int64_t> fired;
  for (int round = 0; round < 200; ++round) {
    for (int i = 0; i < kTimers; ++i) {
      k.cancel(ids[i]);
      ids[i] = k.at(Time::us(1000 + round * kTimers + i),
                    [&fired, &k] { fired.push_back(k.now().picoseconds()); });
    }
  }
  EXPECT_EQ(k.pending(), static_cast<std::size_t>(kTimers));
  k.run();
  ASSERT_EQ(fired.size(), static_cast<std::size_t>(kTimers));
  EXPECT_TRUE(std::is_sorted(fired.begin(), fired.end()));
  EXPECT_EQ(fired.front(), Time::us(1000 + 199 * kTimers).picoseconds());
}

// Against a reference model: random schedules and cancels, checking the exact run order.
TEST(EventKernel, MatchesReferenceOrderUnderRandomScheduleAndCancel) {
  RandomStream rng(7, "event-kernel-test");
  EventKernel k;
  struct Planned {
    int64_t time;
    int id;
  };
  std::vector<Planned> planned;
  std::vector<world::TimerId> ids;
  std::vector<int> seen;
  for (int i = 0; i < 5000; ++i) {
    const int64_t t = static_cast<int64_t>(rng.uniform_int(0, 300));
    ids.push_back(k.at(Time::ps(t), [&seen, i] { seen.push_back(i); }));
    planned.push_back({t, i});
  }
  std::vector<bool> cancelled(planned.size(), false);
  for (int i = 0; i < 2000; ++i) {
    const auto victim = rng.uniform_int(0, planned.size() - 1);
    EXPECT_EQ(k.cancel(ids[victim]), !cancelled[victim]);
    cancelled[victim] = true;
  }
  std::vector<int> expected;
  std::stable_sort(planned.begin(), planned.end(),
                   [](const Planned& a, const Planned& b) { return a.time < b.time; });
  for (const auto& p : planned) {
    if (!cancelled[p.id]) expected.push_back(p.id);
  }
  k.run();
  EXPECT_EQ(seen, expected);
}

TEST(EventKernel, ReleasesCapturedStateOnCancel) {
  EventKernel k;
  auto token = std::make_shared<int>(1);
  auto id = k.at(Time::s(1), [token] { (void)token; });
  EXPECT_EQ(token.use_count(), 2);
  k.cancel(id);
  EXPECT_EQ(token.use_count(), 1);
}

}  // namespace
}  // namespace bifrost::sim
