// The sender's table of messages, replies and wire-number lookups (src/transport/numbered_slots.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "bifrost/core/error.h"
#include "transport/numbered_slots.h"

namespace bifrost::transport {
namespace {

std::vector<std::pair<uint64_t, int>> entries(NumberedSlots<int>& s) {
  std::vector<std::pair<uint64_t, int>> out;
  s.for_each([&out](uint64_t n, int v) { out.emplace_back(n, v); });
  return out;
}

TEST(NumberedSlots, FindsLiveEntriesByNumberOnly) {
  NumberedSlots<int> s;
  s.add(1) = 10;
  s.add(2) = 20;
  s.add(5) = 50;  // 3 and 4 skipped
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(*s.find(2), 20);
  EXPECT_EQ(s.find(3), nullptr);
  EXPECT_EQ(s.find(6), nullptr);
  EXPECT_EQ(s.find(0), nullptr);
  s.erase(2);
  s.erase(2);  // a second erase is a no-op
  EXPECT_EQ(s.find(2), nullptr);
  EXPECT_EQ(s.size(), 2u);
  EXPECT_THROW(s.at(2), Error);
  EXPECT_EQ(entries(s), (std::vector<std::pair<uint64_t, int>>{{1, 10}, {5, 50}}));
}

TEST(NumberedSlots, RefusesANumberBelowOneAddedBefore) {
  NumberedSlots<int> s;
  s.add(4);
  EXPECT_THROW(s.add(4), Error);
  EXPECT_THROW(s.add(3), Error);
}

TEST(NumberedSlots, AnOldLiveEntrySurvivesTheRingGrowingPastIt) {
  NumberedSlots<int> s;
  s.add(1) = -1;  // stays while thousands come and go after it
  for (uint64_t n = 2; n < 5000; ++n) {
    s.add(n) = static_cast<int>(n);
    if (n > 10) s.erase(n - 8);
  }
  // Live: 1, 2 (never erased) and 4992..4999.
  EXPECT_EQ(s.size(), 10u);
  EXPECT_EQ(s.at(1), -1);
  EXPECT_EQ(s.at(2), 2);
  EXPECT_EQ(s.find(4991), nullptr);
  EXPECT_EQ(s.at(4999), 4999);
}

TEST(NumberedSlots, ASlotKeepsItsValueForTheNextNumberOnIt) {
  // A message's per-unit vectors keep their capacity for the next message in the slot.
  NumberedSlots<std::vector<int>> s;
  s.add(1).assign(100, 7);
  s.erase(1);
  // With nothing live, the next number starts the span afresh: its slot is a different one
  // unless the ring maps both to the same index (64 slots: 65 does).
  std::vector<int>& reused = s.add(65);
  EXPECT_GE(reused.capacity(), 100u);
}

TEST(NumberedSlots, ClearFreesEverySlotAndLaterNumbersStillGo) {
  NumberedSlots<int> s;
  for (uint64_t n = 10; n < 20; ++n) s.add(n) = 1;
  s.clear();
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.find(15), nullptr);
  s.add(20) = 2;
  EXPECT_EQ(entries(s), (std::vector<std::pair<uint64_t, int>>{{20, 2}}));
}

}  // namespace
}  // namespace bifrost::transport
