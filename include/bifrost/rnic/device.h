#pragma once
// A soft RoCEv2 NIC's verbs objects: it owns the GID table, the key stream, the hardware clock,
// and every PD, MR, CQ and QP created on it. References it returns stay valid until the object
// is destroyed on it (or the device is).
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "bifrost/core/rng.h"
#include "bifrost/core/time.h"
#include "bifrost/rnic/completion_queue.h"
#include "bifrost/rnic/hw_clock.h"
#include "bifrost/rnic/memory_region.h"
#include "bifrost/rnic/queue_pair.h"
#include "bifrost/world/address.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::rnic {

struct DeviceConfig {
  std::string name = "rnic0";
  uint64_t seed = 1;                // master seed; the device derives its streams from its name
  std::vector<world::Ipv4> gids;    // source addresses; at least one
  uint32_t max_mtu = 4096;          // largest path MTU a QP may use
  size_t max_cq_entries = 1 << 22;  // like ibv_device_attr.max_cqe
  // The modelled cost of reading the NIC clock from software (about 1 us on ConnectX-4); the
  // data path charges it to whoever calls query_clock.
  Time clock_query_cost = Time::us(1);
  Time clock_offset;
  double clock_drift_ppm = 0;
};

class Device {
 public:
  // Throws Error for an empty GID table or a max_mtu that is not 256..4096 and a power of two.
  Device(world::Scheduler& scheduler, DeviceConfig config);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  ProtectionDomain alloc_pd();
  const MemoryRegion& reg_mr(ProtectionDomain pd, uint64_t base, uint64_t length, Access access);
  void dereg_mr(uint32_t lkey);
  const MemoryRegistry& memory() const { return memory_; }

  // Throws Error if entries is 0 or above max_cq_entries.
  CompletionQueue& create_cq(size_t entries);
  // The QP number is 24 bits, unique among live QPs, never 0 or 1 (reserved as in IB).
  QueuePair& create_qp(ProtectionDomain pd, QpType type, CompletionQueue& send_cq,
                       CompletionQueue& recv_cq);
  // Throws Error if no live QP has this number.
  void destroy_qp(uint32_t qp_num);
  QueuePair* find_qp(uint32_t qp_num);

  const std::string& name() const { return config_.name; }
  const std::vector<world::Ipv4>& gids() const { return config_.gids; }
  uint32_t max_mtu() const { return config_.max_mtu; }
  Time clock_query_cost() const { return config_.clock_query_cost; }
  const HwClock& clock() const { return clock_; }
  // The NIC clock now, as a CQE timestamp would carry it.
  Time hw_time() const { return clock_.hw_time(scheduler_.now()); }

 private:
  world::Scheduler& scheduler_;
  DeviceConfig config_;
  HwClock clock_;
  MemoryRegistry memory_;
  uint32_t next_pd_ = 1;
  uint32_t next_qpn_ = 2;
  std::vector<std::unique_ptr<CompletionQueue>> cqs_;
  std::unordered_map<uint32_t, std::unique_ptr<QueuePair>> qps_;
};

}  // namespace bifrost::rnic
