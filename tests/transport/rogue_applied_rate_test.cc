// RoGUE's model of the rate the NIC applied to each byte (src/transport/rogue/applied_rate.h):
// a change lands `delay` units after it is asked for, and a batch across it is timed at the old
// rate before and the new one after.
#include "transport/rogue/applied_rate.h"

#include <gtest/gtest.h>

namespace bifrost::transport::rogue {
namespace {

TEST(AppliedRateModel, NothingAskedIsUnlimited) {
  const AppliedRateModel m(160'000, Rate::Gbps(10));
  EXPECT_EQ(m.effective_rate(0, 65'536), std::nullopt);
}

TEST(AppliedRateModel, AChangeLandsAfterTheDelayAndABatchAcrossItMixesBothRates) {
  AppliedRateModel m(100'000, Rate::Gbps(10));
  m.on_request(0, Rate::Gbps(8));
  // Before it lands the NIC sent at line rate: a batch wholly before is unlimited.
  EXPECT_EQ(m.effective_rate(0, 100'000), std::nullopt);
  // Wholly after: the new rate.
  EXPECT_EQ(m.effective_rate(100'000, 50'000), Rate::Gbps(8));
  // Half at 10, half at 8 Gb/s: 100,000 units in 40 + 50 us, 8.889 Gb/s.
  EXPECT_EQ(m.effective_rate(50'000, 100'000), Rate::bps(8'888'888'889));
  // A cut to 4 Gb/s asked at 150,000 lands at 250,000.
  m.on_request(150'000, Rate::Gbps(4));
  EXPECT_EQ(m.effective_rate(200'000, 100'000), Rate::bps(5'333'333'333));  // 50 + 100 us
  EXPECT_EQ(m.pending_changes(), 2u);
  m.forget_before(250'000);  // both landed: the 4 Gb/s is the base now
  EXPECT_EQ(m.pending_changes(), 0u);
  EXPECT_EQ(m.effective_rate(0, 10'000), Rate::Gbps(4));
  m.on_request(300'000, std::nullopt);  // back to unlimited: the line rate after 400,000
  EXPECT_EQ(m.effective_rate(350'000, 100'000), Rate::bps(5'714'285'714));  // 100 + 40 us
}

TEST(AppliedRateModel, WithoutADelayTheRateAskedHoldsAtOnce) {
  AppliedRateModel m(0, Rate::Gbps(40));
  m.on_request(1'000, Rate::Gbps(10));
  EXPECT_EQ(m.effective_rate(1'000, 65'536), Rate::Gbps(10));
  // A batch already enqueued when a later cut is asked is timed at the cut for what follows.
  m.on_request(33'768, Rate::Gbps(5));
  EXPECT_EQ(m.effective_rate(1'000, 65'536), Rate::bps(6'666'666'667));
}

}  // namespace
}  // namespace bifrost::transport::rogue
