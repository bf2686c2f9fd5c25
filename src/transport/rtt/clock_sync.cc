#include "bifrost/transport/rtt/clock_sync.h"

#include "bifrost/rnic/device.h"

namespace bifrost::transport {

ClockSync::ClockSync(world::Scheduler& software_clock, const rnic::Device& nic,
                     ClockSyncConfig config)
    : software_clock_(software_clock), nic_(nic), config_(config) {
  offset_ = nic_.hw_time() - software_clock_.now();
  last_check_ = software_clock_.now();
  ++queries_;
  query_time_ += nic_.clock_query_cost();
}

Time ClockSync::nic_now() {
  if (software_clock_.now() - last_check_ >= config_.refresh) measure();
  return software_clock_.now() + offset_;
}

void ClockSync::measure() {
  const Time measured = nic_.hw_time() - software_clock_.now();
  ++queries_;
  query_time_ += nic_.clock_query_cost();
  last_check_ = software_clock_.now();
  const Time error = measured > offset_ ? measured - offset_ : offset_ - measured;
  if (error > config_.tolerance) {
    offset_ = measured;
    ++corrections_;
  }
}

}  // namespace bifrost::transport
