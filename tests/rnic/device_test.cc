#include "bifrost/rnic/device.h"

#include <gtest/gtest.h>

#include <string>
#include <unordered_set>

#include "manual_scheduler.h"
#include "support/error_message.h"

namespace bifrost::rnic {
namespace {

using testing::error_of;
using testing::ManualScheduler;

DeviceConfig config() {
  DeviceConfig c;
  c.gids = {world::Ipv4::of(10, 0, 0, 1), world::Ipv4::of(10, 0, 1, 1)};
  return c;
}

TEST(Device, QpNumbersAreUnique24BitAndNeverZeroOrOne) {
  ManualScheduler sched;
  Device dev(sched, config());
  const ProtectionDomain pd = dev.alloc_pd();
  CompletionQueue& cq = dev.create_cq(64);
  std::unordered_set<uint32_t> seen;
  for (int i = 0; i < 1000; ++i) {
    const uint32_t qpn = dev.create_qp(pd, QpType::rc, cq, cq).qp_num();
    EXPECT_GE(qpn, 2u);
    EXPECT_LT(qpn, 1u << 24);
    EXPECT_TRUE(seen.insert(qpn).second) << qpn;
    if (i % 3 == 0) dev.destroy_qp(qpn);
  }
  EXPECT_EQ(dev.find_qp(0), nullptr);
  EXPECT_EQ(dev.find_qp(1), nullptr);
  EXPECT_EQ(error_of([&] { dev.destroy_qp(1); }), "device rnic0: cannot destroy QP 1: no such QP");
}

TEST(Device, QpSeesTheGidTableAndMtuLimit) {
  ManualScheduler sched;
  DeviceConfig c = config();
  c.max_mtu = 1024;
  Device dev(sched, c);
  CompletionQueue& cq = dev.create_cq(4);
  QueuePair& qp = dev.create_qp(dev.alloc_pd(), QpType::uc, cq, cq);
  QpAttr a;
  a.state = QpState::init;
  qp.modify(
      a, QpAttrMask::state | QpAttrMask::pkey_index | QpAttrMask::port | QpAttrMask::access_flags);
  a.state = QpState::rtr;
  a.path_mtu = 2048;
  a.av.sgid_index = 1;
  const auto rtr = QpAttrMask::state | QpAttrMask::av | QpAttrMask::path_mtu |
                   QpAttrMask::dest_qp_num | QpAttrMask::rq_psn;
  EXPECT_NE(error_of([&] { qp.modify(a, rtr); }).find("at most the device's 1024"),
            std::string::npos);
  a.path_mtu = 1024;
  qp.modify(a, rtr);
  EXPECT_EQ(qp.query().av.sgid_index, 1);
}

TEST(Device, RegistersMemoryWithDeviceKeys) {
  ManualScheduler sched;
  Device dev(sched, config());
  const ProtectionDomain pd = dev.alloc_pd();
  EXPECT_NE(dev.alloc_pd(), pd);
  const MemoryRegion mr = dev.reg_mr(pd, 0x10000, 4096, Access::local_write | Access::remote_write);
  EXPECT_NE(mr.lkey, mr.rkey);
  EXPECT_EQ(dev.memory().check_remote(pd, mr.rkey, 0x10000, 4096, Access::remote_write),
            AccessResult::ok);
  dev.dereg_mr(mr.lkey);
  EXPECT_EQ(dev.memory().size(), 0u);
  // Same seed and name, same keys: runs are reproducible.
  Device twin(sched, config());
  EXPECT_EQ(twin.reg_mr(twin.alloc_pd(), 0, 1, Access::none).lkey, mr.lkey);
}

TEST(Device, HardwareClockFollowsTheSchedulerWithOffsetAndDrift) {
  ManualScheduler sched;
  DeviceConfig c = config();
  c.clock_offset = Time::us(250);
  c.clock_drift_ppm = 100;
  Device dev(sched, c);
  EXPECT_EQ(dev.clock_query_cost(), Time::us(1));
  EXPECT_EQ(dev.hw_time(), Time::us(250));
  sched.now_ = Time::ms(20);  // +100 ppm of 20 ms is 2 us
  EXPECT_EQ(dev.hw_time(), Time::ms(20) + Time::us(250) + Time::us(2));
}

TEST(Device, RejectsBadConfigurationAndCqSizes) {
  ManualScheduler sched;
  EXPECT_EQ(error_of([&] { Device(sched, DeviceConfig{}); }),
            "device rnic0: the GID table is empty; give it at least one source address");
  DeviceConfig c = config();
  c.max_mtu = 1500;
  EXPECT_EQ(error_of([&] { Device(sched, c); }),
            "device rnic0: max_mtu 1500 is invalid: use 256, 512, 1024, 2048 or 4096 bytes");
  Device dev(sched, config());
  EXPECT_EQ(error_of([&] { dev.create_cq(0); }),
            "device rnic0: cannot create a CQ of 0 entries: use 1..4194304");
}

TEST(Device, QpTransitionCostsAreTheBifrostPapersUnlessConfigured) {
  ManualScheduler sched;
  const Device plain(sched, config());
  EXPECT_EQ(plain.qp_transition_costs().recover, Time::ms(5));          // "e.g., 5ms"
  EXPECT_EQ(plain.qp_transition_costs().activate_ready, Time::us(60));  // "~60 us"
  DeviceConfig c = config();
  c.qp_transitions = {.recover = Time::ms(2), .activate_ready = Time::us(10)};
  const Device tuned(sched, c);
  EXPECT_EQ(tuned.qp_transition_costs().recover, Time::ms(2));
  EXPECT_EQ(tuned.qp_transition_costs().activate_ready, Time::us(10));
  c.qp_transitions.activate_ready = Time::us(-1);
  EXPECT_EQ(error_of([&] { Device(sched, c); }),
            "device rnic0: QP transition costs must not be negative");
}

TEST(Device, APerPriorityLimiterIsAssignedPerQpWithinTheBank) {
  ManualScheduler sched;
  DeviceConfig c = config();
  Device per_qp(sched, c);
  const ProtectionDomain pd = per_qp.alloc_pd();
  CompletionQueue& cq = per_qp.create_cq(64);
  QueuePair& own = per_qp.create_qp(pd, QpType::rc, cq, cq);
  EXPECT_EQ(per_qp.rate_limiter_bank_size(), 0u);
  EXPECT_EQ(per_qp.rate_limiter(own), nullptr);  // no rate ever set
  EXPECT_EQ(error_of([&] { per_qp.assign_limiter(own, 0); }),
            "device rnic0: QP " + std::to_string(own.qp_num()) +
                " cannot be assigned limiter 0: per-priority limiters are off (every QP has its "
                "own)");

  c.per_priority_limiters = 8;
  Device bank(sched, c);
  CompletionQueue& bcq = bank.create_cq(64);
  const ProtectionDomain bpd = bank.alloc_pd();
  QueuePair& first = bank.create_qp(bpd, QpType::rc, bcq, bcq);
  QueuePair& second = bank.create_qp(bpd, QpType::rc, bcq, bcq);
  EXPECT_EQ(bank.rate_limiter_bank_size(), 8u);
  // Same class (0): one limiter until each is given its own.
  EXPECT_EQ(bank.rate_limiter(first), bank.rate_limiter(second));
  bank.assign_limiter(first, 3);
  bank.assign_limiter(second, 7);
  EXPECT_NE(bank.rate_limiter(first), bank.rate_limiter(second));
  bank.set_rate_limit(first, Rate::Gbps(2));
  bank.set_rate_limit(second, Rate::Gbps(5));
  EXPECT_EQ(bank.rate_limiter(first)->rate(), Rate::Gbps(2));
  EXPECT_EQ(bank.rate_limiter(second)->rate(), Rate::Gbps(5));
  EXPECT_EQ(error_of([&] { bank.assign_limiter(first, 8); }),
            "device rnic0: limiter 8 does not exist: the bank has limiters 0..7");
}

}  // namespace
}  // namespace bifrost::rnic
