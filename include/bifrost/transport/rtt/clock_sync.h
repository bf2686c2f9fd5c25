#pragma once
// The software clock kept in step with the NIC clock (the Bifröst paper's A.5). Software reads
// a cheap clock (rdtsc-like: the world's scheduler clock here); CQE timestamps come from the
// NIC clock, which has its own offset and drift and costs about 1 us to query. The RTT of
// eq. (1) subtracts a receiver delay T3' - T2 whose ends are on the two clocks, so T3' is
// converted to the NIC clock with an estimated offset that is re-measured whenever it has not
// been checked for `refresh`, and corrected only when it is off by more than `tolerance`.
#include <cstdint>

#include "bifrost/core/time.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::rnic {
class Device;
}

namespace bifrost::transport {

struct ClockSyncConfig {
  Time refresh = Time::us(100);
  Time tolerance = Time::us(10);
};

class ClockSync {
 public:
  // Queries the NIC clock once to start from a measured offset.
  ClockSync(world::Scheduler& software_clock, const rnic::Device& nic, ClockSyncConfig config = {});

  // The NIC clock's reading now, estimated from the software clock; re-measures the offset
  // first when it is due.
  Time nic_now();

  uint64_t queries() const { return queries_; }
  uint64_t corrections() const { return corrections_; }
  // Modelled CPU time spent reading the NIC clock.
  Time query_time() const { return query_time_; }

 private:
  void measure();

  world::Scheduler& software_clock_;
  const rnic::Device& nic_;
  ClockSyncConfig config_;
  Time offset_;  // NIC time minus software time
  Time last_check_;
  uint64_t queries_ = 0;
  uint64_t corrections_ = 0;
  Time query_time_;
};

}  // namespace bifrost::transport
