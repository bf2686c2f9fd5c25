// The sender's open WQEs by SEND number, visited as an ACK's cumulative floor rises.
#include "transport/floor_index.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace bifrost::transport {
namespace {

std::vector<uint64_t> advance(FloorIndex& index, uint64_t floor) {
  std::vector<uint64_t> globals;
  index.advance(floor, [&globals](uint64_t g) { globals.push_back(g); });
  return globals;
}

TEST(FloorIndex, VisitsWhatTheFloorNewlyPassesOnceLowestFirst) {
  FloorIndex index;
  for (uint64_t n = 0; n < 6; ++n) index.carry(n, 100 + n);
  EXPECT_EQ(advance(index, 3), (std::vector<uint64_t>{100, 101, 102}));
  EXPECT_EQ(advance(index, 2), std::vector<uint64_t>{});  // an older ACK: nothing
  EXPECT_EQ(advance(index, 3), std::vector<uint64_t>{});  // the same floor: nothing again
  EXPECT_EQ(advance(index, 5), (std::vector<uint64_t>{103, 104}));
  EXPECT_EQ(index.size(), 1u);
}

TEST(FloorIndex, AResendTakesItsNumbersEntryAndNumbersBelowTheFloorAreNotKept) {
  FloorIndex index;
  index.carry(0, 10);
  index.carry(1, 11);
  index.carry(2, 12);
  index.carry(1, 20);  // number 1 went again as WQE 20
  EXPECT_EQ(advance(index, 1), std::vector<uint64_t>{10});
  index.carry(0, 30);  // a resend of an arrived number: nothing to find later
  EXPECT_EQ(advance(index, 3), (std::vector<uint64_t>{20, 12}));
  EXPECT_EQ(index.size(), 0u);
}

TEST(FloorIndex, SkipsNumbersNoWqeCarries) {
  FloorIndex index;
  index.carry(2, 7);
  index.carry(9, 8);
  EXPECT_EQ(advance(index, 10), (std::vector<uint64_t>{7, 8}));
  EXPECT_EQ(index.floor(), 10u);
}

}  // namespace
}  // namespace bifrost::transport
