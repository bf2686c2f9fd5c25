#pragma once
// Two simulated hosts for RoGUE's single-connection benches (Table 1, Fig. 7, Figs. 2/3/6):
// ConnectX-3 Pro soft RNICs on one wire of a given rate and delay (sim::TransportPair), with a
// content-tracked region on each side that the peer may WRITE and READ.
#include <cstdint>
#include <memory>

#include "bifrost/core/rate.h"
#include "bifrost/core/time.h"
#include "bifrost/rnic/host_memory.h"
#include "bifrost/sim/transport_pair.h"

namespace bifrost::rogue_rtt {

inline constexpr uint64_t kRegionBase = 0x5000'0000'0000;

struct WireConfig {
  Rate line_rate = Rate::Gbps(10);
  Time one_way_delay = Time::ns(500);
  uint32_t mtu = 2048;
  uint64_t seed = 1;
  bool completes_at_transmit = false;  // DeviceConfig::complete_sends_at_transmit
};

struct Hosts {
  Hosts(const WireConfig& wire, uint64_t region_bytes);

  // A bare RC QP on each side (RoCE: the NIC alone), each with a CQ of its own of `cq_entries`,
  // connected to each other.
  void connect_bare_rc(size_t cq_entries);

  sim::TransportPair pair;
  std::unique_ptr<rnic::TokenMemory> memory[2];
  const rnic::MemoryRegion* region[2] = {nullptr, nullptr};
  uint32_t mtu = 2048;
  rnic::QueuePair* qp[2] = {nullptr, nullptr};  // connect_bare_rc's
  rnic::CompletionQueue* cq[2] = {nullptr, nullptr};
};

}  // namespace bifrost::rogue_rtt
