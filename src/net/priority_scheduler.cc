#include "bifrost/net/priority_scheduler.h"

#include "bifrost/core/error.h"

namespace bifrost::net {

PriorityScheduler::PriorityScheduler(const SchedulingConfig& config) : config_(config) {
  if (config.policy != SchedulingPolicy::kDeficitRoundRobin) return;
  for (int p = 0; p < kPriorities; ++p) {
    if (config.quantum_bytes[p] == 0) {
      throw Error("DWRR quantum of priority {} is zero; every priority needs a positive quantum",
                  p);
    }
  }
}

}  // namespace bifrost::net
