#include "bifrost/rnic/memory_region.h"

#include <gtest/gtest.h>

#include <unordered_set>

#include "support/error_message.h"

namespace bifrost::rnic {
namespace {

using testing::error_of;

constexpr ProtectionDomain kPd{1};
constexpr ProtectionDomain kOtherPd{2};
constexpr Access kAll =
    Access::local_write | Access::remote_write | Access::remote_read | Access::remote_atomic;

TEST(MemoryRegistry, ChecksEveryResultWithHandPickedValues) {
  MemoryRegistry reg(RandomStream(7));
  // [0x1000, 0x2000): 4096 bytes, remote write but no remote read.
  const MemoryRegion mr =
      reg.register_region(kPd, 0x1000, 0x1000, Access::local_write | Access::remote_write);
  EXPECT_EQ(reg.check_remote(kPd, mr.rkey, 0x1000, 0x1000, Access::remote_write), AccessResult::ok);
  EXPECT_EQ(reg.check_remote(kPd, mr.rkey, 0x1800, 0x800, Access::remote_write), AccessResult::ok);
  EXPECT_EQ(reg.check_remote(kPd, mr.rkey ^ 1, 0x1000, 1, Access::remote_write),
            AccessResult::bad_rkey);
  EXPECT_EQ(reg.check_remote(kPd, 0, 0x1000, 1, Access::remote_write), AccessResult::bad_rkey);
  // An lkey is not an rkey.
  EXPECT_EQ(reg.check_remote(kPd, mr.lkey, 0x1000, 1, Access::remote_write),
            AccessResult::bad_rkey);
  EXPECT_EQ(reg.check_remote(kOtherPd, mr.rkey, 0x1000, 1, Access::remote_write),
            AccessResult::wrong_pd);
  EXPECT_EQ(reg.check_remote(kPd, mr.rkey, 0x1000, 1, Access::remote_read),
            AccessResult::access_denied);
  EXPECT_EQ(reg.check_remote(kPd, mr.rkey, 0x1000, 8, Access::remote_atomic),
            AccessResult::access_denied);
  EXPECT_EQ(reg.check_remote(kPd, mr.rkey, 0x1000, 0x1001, Access::remote_write),
            AccessResult::out_of_bounds);
  EXPECT_EQ(reg.check_remote(kPd, mr.rkey, 0x0fff, 1, Access::remote_write),
            AccessResult::out_of_bounds);
  EXPECT_EQ(reg.check_remote(kPd, mr.rkey, 0x1fff, 2, Access::remote_write),
            AccessResult::out_of_bounds);
  EXPECT_EQ(reg.check_remote(kPd, mr.rkey, 0x2000, 1, Access::remote_write),
            AccessResult::out_of_bounds);
}

TEST(MemoryRegistry, ZeroLengthIsOkInsideAndAtTheEndOnly) {
  MemoryRegistry reg(RandomStream(7));
  const MemoryRegion mr = reg.register_region(kPd, 0x1000, 0x100, kAll);
  EXPECT_EQ(reg.check_remote(kPd, mr.rkey, 0x1000, 0, Access::remote_write), AccessResult::ok);
  EXPECT_EQ(reg.check_remote(kPd, mr.rkey, 0x1080, 0, Access::remote_read), AccessResult::ok);
  EXPECT_EQ(reg.check_remote(kPd, mr.rkey, 0x1100, 0, Access::remote_write), AccessResult::ok);
  EXPECT_EQ(reg.check_remote(kPd, mr.rkey, 0x1101, 0, Access::remote_write),
            AccessResult::out_of_bounds);
  EXPECT_EQ(reg.check_remote(kPd, mr.rkey, 0x0fff, 0, Access::remote_write),
            AccessResult::out_of_bounds);
}

TEST(MemoryRegistry, WrapAroundIsOutOfBounds) {
  MemoryRegistry reg(RandomStream(7));
  const MemoryRegion mr = reg.register_region(kPd, 0x1000, 0x1000, kAll);
  // va + length wraps to 0x1000, which a naive end check (va + length <= end) would accept.
  EXPECT_EQ(reg.check_remote(kPd, mr.rkey, 0x1800, UINT64_MAX - 0x7ff, Access::remote_write),
            AccessResult::out_of_bounds);
  EXPECT_EQ(reg.check_remote(kPd, mr.rkey, 0x1800, UINT64_MAX, Access::remote_write),
            AccessResult::out_of_bounds);
  EXPECT_EQ(reg.check_remote(kPd, mr.rkey, UINT64_MAX, 2, Access::remote_write),
            AccessResult::out_of_bounds);
  // A region that ends exactly at 2^64 - 1 is fine, and so is its last byte.
  const MemoryRegion top = reg.register_region(kPd, UINT64_MAX - 0xff, 0xff, kAll);
  EXPECT_EQ(reg.check_remote(kPd, top.rkey, UINT64_MAX - 1, 1, Access::remote_read),
            AccessResult::ok);
  EXPECT_EQ(reg.check_remote(kPd, top.rkey, UINT64_MAX, 0, Access::remote_read), AccessResult::ok);
  EXPECT_EQ(reg.check_remote(kPd, top.rkey, UINT64_MAX, 1, Access::remote_read),
            AccessResult::out_of_bounds);
}

TEST(MemoryRegistry, LocalCheckUsesTheLkey) {
  MemoryRegistry reg(RandomStream(7));
  const MemoryRegion ro = reg.register_region(kPd, 0x1000, 0x100, Access::remote_read);
  EXPECT_EQ(reg.check_local(kPd, ro.lkey, 0x1000, 0x100, Access::none), AccessResult::ok);
  EXPECT_EQ(reg.check_local(kPd, ro.lkey, 0x1000, 0x100, Access::local_write),
            AccessResult::access_denied);
  EXPECT_EQ(reg.check_local(kPd, ro.rkey, 0x1000, 1, Access::none), AccessResult::bad_rkey);
  EXPECT_EQ(reg.check_local(kOtherPd, ro.lkey, 0x1000, 1, Access::none), AccessResult::wrong_pd);
  EXPECT_EQ(reg.check_local(kPd, ro.lkey, 0x1001, 0x100, Access::none),
            AccessResult::out_of_bounds);
}

TEST(MemoryRegistry, DeregisteredKeysStopWorking) {
  MemoryRegistry reg(RandomStream(7));
  const MemoryRegion mr = reg.register_region(kPd, 0x1000, 0x100, kAll);
  reg.deregister(mr.lkey);
  EXPECT_EQ(reg.size(), 0u);
  EXPECT_EQ(reg.check_remote(kPd, mr.rkey, 0x1000, 1, Access::remote_read), AccessResult::bad_rkey);
  EXPECT_EQ(reg.check_local(kPd, mr.lkey, 0x1000, 1, Access::none), AccessResult::bad_rkey);
  EXPECT_EQ(
      error_of([&] { reg.deregister(mr.lkey); }),
      fmt::format("cannot deregister memory region with lkey {:#010x}: no such region", mr.lkey));
}

TEST(MemoryRegistry, KeysAreUniqueAndNotSequentialOverTenThousandRegistrations) {
  MemoryRegistry reg(RandomStream(42));
  std::unordered_set<uint32_t> keys;
  uint32_t previous = 0;
  int sequential = 0;
  for (int i = 0; i < 10'000; ++i) {
    const MemoryRegion mr = reg.register_region(kPd, 0x1000 * i, 0x1000, kAll);
    EXPECT_NE(mr.lkey, 0u);
    EXPECT_NE(mr.rkey, 0u);
    EXPECT_TRUE(keys.insert(mr.lkey).second);
    EXPECT_TRUE(keys.insert(mr.rkey).second);
    if (mr.rkey == previous + 1) ++sequential;
    previous = mr.rkey;
    // Half are deregistered: keys of dead regions must not come back either.
    if (i % 2 == 0) reg.deregister(mr.lkey);
  }
  EXPECT_EQ(keys.size(), 20'000u);
  EXPECT_EQ(sequential, 0);
  EXPECT_EQ(reg.size(), 5'000u);
}

TEST(MemoryRegistry, RejectsRegionsThatWrapOrLackLocalWrite) {
  MemoryRegistry reg(RandomStream(7));
  EXPECT_EQ(error_of([&] { reg.register_region(kPd, UINT64_MAX - 0xff, 0x100, kAll); }),
            "cannot register memory region at 0xffffffffffffff00 of 256 bytes: it wraps past "
            "the end of the 64-bit address space");
  EXPECT_EQ(error_of([&] { reg.register_region(kPd, 0x1000, 1, Access::remote_write); }),
            "cannot register memory region with access remote_write: remote_write and "
            "remote_atomic need local_write as well");
  EXPECT_EQ(error_of([&] {
              reg.register_region(kPd, 0x1000, 1, Access::remote_read | Access::remote_atomic);
            }),
            "cannot register memory region with access remote_read|remote_atomic: remote_write "
            "and remote_atomic need local_write as well");
  EXPECT_EQ(reg.size(), 0u);
}

}  // namespace
}  // namespace bifrost::rnic
