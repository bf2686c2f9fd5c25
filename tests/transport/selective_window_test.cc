// The sender's send-side window (selective settlement by global number) and its RTO clock.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "bifrost/transport/reliability/rto_clock.h"
#include "bifrost/transport/reliability/selective_window.h"

namespace bifrost::transport {
namespace {

struct Wqe {
  uint64_t global = 0;
  uint32_t bytes = 0;
  bool done = false;
  bool completed = false;
  int tag = 0;
};

std::vector<uint64_t> open_numbers(SelectiveWindow<Wqe>& w, uint64_t before) {
  std::vector<uint64_t> numbers;
  w.for_each_open_before(before, [&numbers](Wqe& wqe) { numbers.push_back(wqe.global); });
  return numbers;
}

TEST(SelectiveWindow, NumbersWqesFromFirstAndCountsOpenBytes) {
  SelectiveWindow<Wqe> w(7);
  EXPECT_EQ(w.open(100).global, 7u);
  EXPECT_EQ(w.open(200).global, 8u);
  EXPECT_EQ(w.next(), 9u);
  EXPECT_EQ(w.open_count(), 2u);
  EXPECT_EQ(w.open_bytes(), 300u);
  EXPECT_EQ(w.find(6), nullptr);
  EXPECT_EQ(w.find(9), nullptr);
  ASSERT_NE(w.find(8), nullptr);
  EXPECT_EQ(w.find(8)->bytes, 200u);
}

TEST(SelectiveWindow, OpenResetsTheSlotALeftWqeUsed) {
  SelectiveWindow<Wqe> w;
  Wqe& first = w.open(10);
  first.tag = 5;
  w.complete(first);
  w.settle(first);
  w.retire();
  for (int i = 0; i < 200; ++i) {  // wraps the ring over the first slot, then grows it
    Wqe& wqe = w.open(1);
    EXPECT_EQ(wqe.tag, 0);
    EXPECT_FALSE(wqe.done);
    EXPECT_FALSE(wqe.completed);
  }
}

TEST(SelectiveWindow, SettlesOutOfOrderAndSettlingTwiceCountsOnce) {
  SelectiveWindow<Wqe> w;
  for (uint32_t i = 1; i <= 4; ++i) w.open(i * 10);  // 1..4: 10, 20, 30, 40 bytes
  w.settle(*w.find(3));
  w.settle(*w.find(3));
  EXPECT_EQ(w.open_count(), 3u);
  EXPECT_EQ(w.open_bytes(), 70u);
  EXPECT_EQ(open_numbers(w, 100), (std::vector<uint64_t>{1, 2, 4}));
}

TEST(SelectiveWindow, AnAckForNFindsTheOlderOpenWqesOnly) {
  SelectiveWindow<Wqe> w;
  for (int i = 0; i < 6; ++i) w.open(1);
  w.settle(*w.find(2));
  w.settle(*w.find(5));  // the ACK named 5: 1, 3 and 4 are older and still open
  EXPECT_EQ(open_numbers(w, 5), (std::vector<uint64_t>{1, 3, 4}));
  // The callback may settle what it visits.
  w.for_each_open_before(5, [&w](Wqe& wqe) { w.settle(wqe); });
  EXPECT_EQ(open_numbers(w, 100), (std::vector<uint64_t>{6}));
  EXPECT_EQ(w.open_count(), 1u);
}

TEST(SelectiveWindow, VisitsTheOpenWqesOfARangeOnly) {
  SelectiveWindow<Wqe> w;
  for (int i = 0; i < 8; ++i) w.open(1);
  w.settle(*w.find(4));
  std::vector<uint64_t> numbers;
  w.for_each_open_between(3, 7, [&numbers](Wqe& wqe) { numbers.push_back(wqe.global); });
  EXPECT_EQ(numbers, (std::vector<uint64_t>{3, 5, 6}));
  numbers.clear();
  w.for_each_open_between(0, 3, [&numbers](Wqe& wqe) { numbers.push_back(wqe.global); });
  EXPECT_EQ(numbers, (std::vector<uint64_t>{1, 2}));  // from before the front: from the front
}

TEST(SelectiveWindow, RetiresFromTheFrontOnlyWhatIsSettledAndCompleted) {
  SelectiveWindow<Wqe> w;
  for (int i = 0; i < 4; ++i) w.open(1);
  w.settle(*w.find(1));  // settled, but the NIC may still read its buffer
  w.complete(*w.find(2));
  w.settle(*w.find(2));
  w.retire();
  EXPECT_EQ(w.size(), 4u);
  w.complete(*w.find(1));
  w.retire();
  EXPECT_EQ(w.size(), 2u);
  EXPECT_EQ(w.find(2), nullptr);
  ASSERT_NE(w.find(3), nullptr);
  EXPECT_EQ(w.find(3)->global, 3u);
}

TEST(SelectiveWindow, CountsTheOpenWqesTheNicHasSent) {
  SelectiveWindow<Wqe> w;
  for (int i = 0; i < 4; ++i) w.open(1);
  EXPECT_EQ(w.open_sent_count(), 0u);  // all four still wait in the NIC
  w.complete(*w.find(1));
  w.complete(*w.find(1));  // once
  w.complete(*w.find(2));
  EXPECT_EQ(w.open_sent_count(), 2u);
  w.settle(*w.find(1));  // acknowledged after it left
  w.settle(*w.find(3));  // settled while still in the NIC (a refused operation)
  EXPECT_EQ(w.open_sent_count(), 1u);
  w.complete(*w.find(3));  // its completion comes later: it was not open any more
  EXPECT_EQ(w.open_sent_count(), 1u);
  w.settle(*w.find(2));
  EXPECT_EQ(w.open_sent_count(), 0u);
  EXPECT_EQ(w.open_count(), 1u);
}

TEST(SelectiveWindow, KeepsNumbersAcrossGrowthWithAWrappedRing) {
  SelectiveWindow<Wqe> w;
  // Fill and drain part of the ring so its front sits mid-vector, then grow past it.
  for (int i = 0; i < 50; ++i) w.open(1);
  for (uint64_t g = 1; g <= 40; ++g) {
    w.complete(*w.find(g));
    w.settle(*w.find(g));
  }
  w.retire();
  for (int i = 0; i < 500; ++i) w.open(2);
  EXPECT_EQ(w.size(), 510u);
  for (uint64_t g = 41; g <= 550; ++g) {
    ASSERT_NE(w.find(g), nullptr) << g;
    EXPECT_EQ(w.find(g)->global, g);
  }
  EXPECT_EQ(w.open_bytes(), 10u + 1000u);
}

TEST(RtoClock, BacksOffPerTimeoutUpToTheCapAndAnAckEndsIt) {
  RtoClock c(2);
  const Time base = Time::us(100);
  EXPECT_EQ(c.rto(base), Time::us(100));
  EXPECT_EQ(c.on_timeout(Time::ms(1)), 1u);
  EXPECT_EQ(c.rto(base), Time::us(200));
  c.on_timeout(Time::ms(2));
  c.on_timeout(Time::ms(3));
  EXPECT_EQ(c.rto(base), Time::us(400));  // capped at 2^2
  EXPECT_EQ(c.deadline(base), Time::ms(3) + Time::us(400));
  c.on_progress(Time::ms(4));  // an RC completion restarts the clock but keeps the backoff
  EXPECT_EQ(c.timeouts_in_a_row(), 3u);
  c.on_acked(Time::ms(5));
  EXPECT_EQ(c.timeouts_in_a_row(), 0u);
  EXPECT_EQ(c.deadline(base), Time::ms(5) + Time::us(100));
}

TEST(RtoClock, SendingOntoAnEmptyWireRestartsItUnlessLossIsUnrepaired) {
  RtoClock c;
  const Time base = Time::us(100);
  c.on_sent(Time::us(10), true);
  EXPECT_EQ(c.last_progress(), Time::us(10));
  c.on_sent(Time::us(20), false);  // the wire was busy: the clock keeps running
  EXPECT_EQ(c.last_progress(), Time::us(10));
  EXPECT_FALSE(c.expired(Time::us(109), base));
  EXPECT_TRUE(c.expired(Time::us(110), base));
  c.on_loss();
  c.on_sent(Time::us(50), true);  // a probe onto a wire emptied by loss
  EXPECT_EQ(c.last_progress(), Time::us(10));
  c.on_progress(Time::us(60));
  c.on_sent(Time::us(70), true);
  EXPECT_EQ(c.last_progress(), Time::us(70));
}

}  // namespace
}  // namespace bifrost::transport
