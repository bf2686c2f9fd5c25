// FaSR's pool over time (the paper's Fig. 10): the time-weighted occupancy of units, blocks and
// bytes, the peak of bytes in use at once, the time with every unit taken, and go-back-N
// fallbacks split by what ran out. Driven on a pool with a hand-moved clock, so every number
// has a closed form.
#include <gtest/gtest.h>

#include <memory>

#include "bifrost/rnic/device.h"
#include "bifrost/rnic/recovery/fasr.h"
#include "bifrost/rnic/recovery/fasr_pool.h"
#include "bifrost/rnic/recovery/fasr_responder.h"
#include "manual_scheduler.h"

namespace bifrost::rnic::recovery {
namespace {

using bifrost::testing::ManualScheduler;

// 2 units, 4 blocks of 10 bits: a block entry is 10 bits + a 2-bit next pointer.
FasrPoolConfig small() {
  return FasrPoolConfig{2, 4, 10};
}

TEST(FasrOccupancy, BlockEntryBitsAreTheBitmapAndTheNextPointer) {
  EXPECT_EQ(fasr_block_entry_bits(small()), 12u);
  EXPECT_EQ(fasr_block_entry_bits(FasrPoolConfig{20, 257, 16}), 16u + 9u);
  EXPECT_EQ(fasr_unit_bits(small()), 305u);
  // The pool's size is what it holds plus one availability bit per entry.
  EXPECT_EQ(fasr_pool_bytes(small()), (2 * (305 + 1) + 4 * 13 + 7) / 8);
}

TEST(FasrOccupancy, IntegratesUnitsBlocksAndBytesOverTime) {
  ManualScheduler clock;
  clock.now_ = Time::us(5);
  FasrPool pool(small());
  pool.set_clock(clock);
  clock.now_ = Time::us(10);
  const int32_t a = pool.allocate_unit();
  clock.now_ = Time::us(30);
  pool.unit(a).bitmap_base = 100;
  pool.set(a, 115);  // two blocks: [100, 110) and [110, 120)
  clock.now_ = Time::us(40);
  const int32_t b = pool.allocate_unit();  // every unit taken
  clock.now_ = Time::us(50);
  pool.release_unit(a);  // with its blocks
  clock.now_ = Time::us(105);

  const FasrPoolOccupancy o = pool.occupancy();
  EXPECT_EQ(o.since, Time::us(5));
  EXPECT_EQ(o.until, Time::us(105));
  EXPECT_EQ(o.observed(), Time::us(100));
  // Units: 1 in [10, 40), 2 in [40, 50), 1 in [50, 105): 30 + 20 + 55 = 105 unit-us.
  EXPECT_DOUBLE_EQ(o.mean_units(), 1.05);
  // Blocks: 2 in [30, 50): 40 block-us.
  EXPECT_DOUBLE_EQ(o.mean_blocks(), 0.4);
  // Bytes: (105 x 305 + 40 x 12) bit-us / 100 us / 8.
  EXPECT_DOUBLE_EQ(o.mean_bytes(), (105.0 * 305 + 40.0 * 12) / 100 / 8);
  EXPECT_EQ(o.units_exhausted, Time::us(10));
  // The most at once: two units and two blocks in [40, 50).
  EXPECT_EQ(pool.usage().peak_bits, 2 * 305u + 2 * 12);
  EXPECT_EQ(pool.usage().peak_units, 2u);
  EXPECT_EQ(pool.usage().peak_blocks, 2u);

  // Asking does not disturb the record: later spans add on.
  clock.now_ = Time::us(205);
  pool.release_unit(b);
  EXPECT_DOUBLE_EQ(pool.occupancy().mean_units(), (105.0 + 100) / 200);
}

TEST(FasrOccupancy, WithoutAClockOnlyCountersAndPeaksAreKept) {
  FasrPool pool(small());
  pool.release_unit(pool.allocate_unit());
  const FasrPoolOccupancy o = pool.occupancy();
  EXPECT_EQ(o.observed(), Time::zero());
  EXPECT_EQ(o.mean_units(), 0.0);
  EXPECT_EQ(pool.usage().peak_bits, 305u);
}

TEST(FasrOccupancy, ADeviceStartsItsPoolsClockWhenItIsMade) {
  ManualScheduler clock;
  clock.now_ = Time::us(7);
  DeviceConfig config;
  config.gids = {world::Ipv4::of(10, 0, 0, 1)};
  config.recovery.kind = EngineKind::fasr;
  Device device(clock, config);
  clock.now_ = Time::us(9);
  const auto& engine = dynamic_cast<const FasrEngine&>(device.recovery_engine());
  EXPECT_EQ(engine.pool().occupancy().since, Time::us(7));
  EXPECT_EQ(engine.pool().occupancy().observed(), Time::us(2));
}

// A responder as the device drives it.
Arrival arrive(FasrResponder& rx, uint32_t psn, uint32_t expected) {
  const Arrival a = rx.classify(psn, expected, 1);
  if (a == Arrival::out_of_order) rx.record(psn, 1);
  rx.feedback(a);
  return a;
}

TEST(FasrOccupancy, FallbacksAreSplitByWhatRanOut) {
  auto pool = std::make_shared<FasrPool>(FasrPoolConfig{1, 1, 10});
  FasrResponder first(pool);
  FasrResponder second(pool);
  // The first QP takes the only unit (0 lost, 1 arrives).
  EXPECT_EQ(arrive(first, 1, 0), Arrival::out_of_order);
  // The second finds no unit.
  EXPECT_EQ(arrive(second, 1, 0), Arrival::drop);
  EXPECT_EQ(pool->usage().fallbacks, 1u);
  EXPECT_EQ(pool->usage().unit_fallbacks, 1u);
  // The first goes slow (2 lost too: one block from PSN 2), then needs a second block.
  EXPECT_EQ(arrive(first, 3, 0), Arrival::out_of_order);
  EXPECT_EQ(arrive(first, 30, 0), Arrival::drop);
  EXPECT_EQ(pool->usage().fallbacks, 2u);
  EXPECT_EQ(pool->usage().unit_fallbacks, 1u);
}

}  // namespace
}  // namespace bifrost::rnic::recovery
