#pragma once
// Two hosts on the Virtuoso paper's testbed (sim multipath topology: two ToRs joined by K
// parallel path links, source routing pins alias i to path link i - 1), a soft RNIC with K + 1
// addresses and a transport endpoint on each, and a content-tracked application region per
// side that the peer may WRITE and READ: the bench of Virtuoso's tests and of its experiments
// that need the library's own counters (tools/bifrost-virtuoso-bench).
#include <cstdint>
#include <memory>
#include <vector>

#include "bifrost/rnic/device.h"
#include "bifrost/rnic/host_memory.h"
#include "bifrost/sim/event_kernel.h"
#include "bifrost/sim/network.h"
#include "bifrost/transport/endpoint.h"
#include "bifrost/transport/virtuoso/mp_connection.h"

namespace bifrost::sim {

struct VirtuosoBedConfig {
  uint32_t paths = 4;
  std::vector<Rate> path_rates;   // empty: every path at path_rate
  std::vector<Time> path_delays;  // empty: every path at path_delay
  Rate path_rate = Rate::Gbps(1);
  Time path_delay = Time::us(2);
  Rate host_rate = Rate::Gbps(10);
  double path_loss = 0;  // random loss on every path link, both directions
  Bytes switch_buffer = Bytes(32'000'000);
  bool pfc = false;  // PFC (dynamic threshold) on every switch port, for the data's priority 0
  // source: alias i pinned to path link i - 1; ecmp: the switches hash (Virtuoso then picks
  // source ports with sim::ecmp_path_oracle).
  scenario::RoutingMode routing = scenario::RoutingMode::source;
  rnic::DeviceConfig device{};
  uint64_t seed = 1;
};

class VirtuosoBed {
 public:
  static constexpr uint64_t kAppBase = 0x7000'0000'0000;
  static constexpr uint64_t kAppBytes = uint64_t{1} << 36;

  explicit VirtuosoBed(const VirtuosoBedConfig& config);
  ~VirtuosoBed();

  EventKernel& kernel() { return kernel_; }
  Network& network() { return *network_; }
  rnic::Device& device(int side) { return *sides_[side].device; }
  transport::Endpoint& endpoint(int side) { return *sides_[side].endpoint; }
  rnic::TokenMemory& memory(int side) { return *sides_[side].memory; }
  const rnic::MemoryRegion& region(int side) { return *sides_[side].region; }
  // Path link i (left-right), in path order.
  const Network::LinkInfo& path_link(uint32_t i) const;

  // A connected pair of MP connections (side 0 and side 1), probing included if configured.
  struct Pair {
    std::unique_ptr<transport::virtuoso::MpConnection> side[2];
  };
  Pair connect(const transport::virtuoso::VirtuosoConfig& config,
               transport::virtuoso::PathEstimateCache* cache = nullptr);

  // `length` fresh bytes (a new pattern seed) at a new address of side `side`; returns it.
  uint64_t fresh(int side, uint64_t length, uint32_t* seed);
  // A new address of side `side` with nothing in it.
  uint64_t room(int side, uint64_t length);
  // Whether [addr, addr + length) of side `side` holds pattern `seed` from offset 0.
  bool holds(int side, uint64_t addr, uint64_t length, uint32_t seed) const;
  // Runs until `done()` or `limit` of simulated time passes; returns done().
  template <typename Done>
  bool run_until(Done done, Time limit) {
    const Time end = kernel_.now() + limit;
    for (Time t = kernel_.now(); !done() && t < end;) {
      t = std::min(end, t + Time::us(100));
      kernel_.run_until(t);
    }
    return done();
  }

 private:
  struct Side {
    std::unique_ptr<rnic::Device> device;
    std::unique_ptr<transport::Endpoint> endpoint;
    std::unique_ptr<rnic::TokenMemory> memory;
    const rnic::MemoryRegion* region = nullptr;
    uint64_t next_addr = kAppBase;
  };
  EventKernel kernel_;
  std::unique_ptr<Network> network_;
  Side sides_[2];
  uint32_t next_seed_ = 1;
};

}  // namespace bifrost::sim
