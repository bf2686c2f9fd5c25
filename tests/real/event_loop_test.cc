#include "bifrost/real/event_loop.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <functional>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/real/clock.h"

namespace bifrost::real {
namespace {

TEST(Clock, MonotonicNeverGoesBack) {
  Time last = monotonic_now();
  for (int i = 0; i < 10000; ++i) {
    const Time t = monotonic_now();
    ASSERT_GE(t, last);
    last = t;
  }
}

TEST(EventLoop, TimersRunInTimeOrderAndEqualTimesInScheduleOrder) {
  EventLoop loop;
  std::vector<int> order;
  const Time base = loop.now() + Time::ms(2);
  loop.at(base + Time::ms(1), [&] { order.push_back(3); });
  loop.at(base, [&] { order.push_back(1); });
  loop.at(base, [&] { order.push_back(2); });
  loop.at(Time::zero(), [&] { order.push_back(0); });  // in the past: runs first
  EXPECT_TRUE(loop.run_until([&] { return order.size() == 4; }, loop.now() + Time::s(5)));
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(loop.pending_timers(), 0u);
}

TEST(EventLoop, TimerDoesNotFireEarly) {
  EventLoop loop;
  const Time start = loop.now();
  Time fired;
  loop.after(Time::us(1500), [&] { fired = loop.now(); });
  ASSERT_TRUE(loop.run_until([&] { return fired != Time::zero(); }, start + Time::s(5)));
  EXPECT_GE(fired - start, Time::us(1500));
}

TEST(EventLoop, CancelStopsATimerOnceAndStaleIdsAreRefused) {
  EventLoop loop;
  int fired = 0;
  const world::TimerId a = loop.after(Time::us(100), [&] { ++fired; });
  const world::TimerId b = loop.after(Time::us(200), [&] { fired += 10; });
  EXPECT_TRUE(loop.cancel(a));
  EXPECT_FALSE(loop.cancel(a));
  EXPECT_FALSE(loop.cancel(world::TimerId{}));
  // The slot of `a` is reused by `c`; the old id must not cancel the new timer.
  const world::TimerId c = loop.after(Time::us(300), [&] { fired += 100; });
  EXPECT_FALSE(loop.cancel(a));
  EXPECT_TRUE(loop.run_until([&] { return fired == 110; }, loop.now() + Time::s(5)));
  EXPECT_FALSE(loop.cancel(b));
  EXPECT_FALSE(loop.cancel(c));
}

TEST(EventLoop, ManyTimersReuseSlotsWithoutGrowing) {
  EventLoop loop;
  int fired = 0;
  for (int round = 0; round < 100; ++round) {
    for (int i = 0; i < 50; ++i) loop.at(Time::zero(), [&] { ++fired; });
    loop.run_once(loop.now());
  }
  EXPECT_EQ(fired, 5000);
  EXPECT_EQ(loop.pending_timers(), 0u);
}

TEST(EventLoop, FdHandlerSeesDataAndMayRemoveItself) {
  EventLoop loop;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  int calls = 0;
  char got = 0;
  loop.add_fd(fds[0], EPOLLIN, [&](uint32_t events) {
    EXPECT_TRUE(events & EPOLLIN);
    ASSERT_EQ(::read(fds[0], &got, 1), 1);
    ++calls;
    loop.remove_fd(fds[0]);
  });
  EXPECT_THROW(loop.add_fd(fds[0], EPOLLIN, [](uint32_t) {}), Error);
  ASSERT_EQ(::write(fds[1], "xy", 2), 2);
  loop.run_until([&] { return calls > 0; }, loop.now() + Time::s(5));
  // The second byte is still there, but the fd is no longer watched.
  loop.run_once(loop.now() + Time::ms(5));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(got, 'x');
  ::close(fds[0]);
  ::close(fds[1]);
}

// The loop comes back late (the process was busy): a timer fell due and data arrived meanwhile.
// The data is read first, so the timer (a tail probe, an RTO) sees it.
TEST(EventLoop, DataThatArrivedWhileAwayIsReadBeforeADueTimer) {
  EventLoop loop;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::vector<char> order;
  loop.add_fd(fds[0], EPOLLIN, [&](uint32_t) {
    char c = 0;
    ASSERT_EQ(::read(fds[0], &c, 1), 1);
    order.push_back('d');
  });
  loop.after(Time::us(100), [&] { order.push_back('t'); });
  ASSERT_EQ(::write(fds[1], "x", 1), 1);
  ::usleep(2000);  // away past the timer's due time, with the byte waiting
  loop.run_until([&] { return order.size() >= 2; }, loop.now() + Time::s(5));
  EXPECT_EQ(order, (std::vector<char>{'d', 't'}));
  ::close(fds[0]);
  ::close(fds[1]);
}

// Deferred callbacks run in order, what they defer after them, all before the loop waits (a
// deadline of never would hang here otherwise).
TEST(EventLoop, DeferredRunsBeforeWaitingInOrder) {
  EventLoop loop;
  std::vector<int> order;
  loop.defer([&] {
    order.push_back(1);
    loop.defer([&] { order.push_back(3); });
  });
  loop.defer([&] { order.push_back(2); });
  while (order.size() < 3) loop.run_once();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

// A callback that defers itself forever (a sender that always has more to send) does not keep
// a readable fd from being served.
TEST(EventLoop, ADeferredChainDoesNotStarveTheSockets) {
  EventLoop loop;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  bool read_it = false;
  loop.add_fd(fds[0], EPOLLIN, [&](uint32_t) {
    char c;
    EXPECT_EQ(::read(fds[0], &c, 1), 1);
    read_it = true;
  });
  uint64_t chain = 0;
  std::function<void()> again = [&] {
    ++chain;
    loop.defer([&] { again(); });
  };
  loop.defer([&] { again(); });
  ASSERT_EQ(::write(fds[1], "x", 1), 1);
  EXPECT_TRUE(loop.run_until([&] { return read_it; }));
  EXPECT_GE(chain, 1u);
  loop.remove_fd(fds[0]);
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST(EventLoop, RunUntilGivesUpAtTheDeadline) {
  EventLoop loop;
  const Time start = loop.now();
  EXPECT_FALSE(loop.run_until([] { return false; }, start + Time::ms(20)));
  EXPECT_GE(loop.now() - start, Time::ms(20));
}

TEST(EventLoop, BusyPollStillFiresTimers) {
  EventLoop loop(EventLoopConfig{.busy_poll = true});
  bool fired = false;
  loop.after(Time::us(200), [&] { fired = true; });
  EXPECT_TRUE(loop.run_until([&] { return fired; }, loop.now() + Time::s(5)));
}

TEST(EventLoop, StopEndsRun) {
  EventLoop loop;
  bool fired = false;
  loop.after(Time::us(100), [&] {
    fired = true;
    loop.stop();
  });
  loop.run();
  EXPECT_TRUE(fired);
}

}  // namespace
}  // namespace bifrost::real
