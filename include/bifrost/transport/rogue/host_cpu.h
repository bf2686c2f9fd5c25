#pragma once
// The host CPU time a RoGUE connection's software spends, as the simulator models it. The RoGUE
// paper (§5.3) puts its 1 MB READ at 1040 us against RoCE's 944 us "due to the cost of reading
// timestamps from the RNIC and processing completion signals every 64KB". The connection's
// software is one thread: a NIC clock read or a signal's handling keeps it busy, and nothing is
// posted on the connection until it is free (RogueConfig::signal_cost, clock_read_cost).
#include "bifrost/core/time.h"

namespace bifrost::transport::rogue {

class HostCpu {
 public:
  // Work of `cost` that starts when the thread is free (at `now` or later, after the work
  // already charged); returns the time it ends.
  Time charge(Time now, Time cost) {
    free_at_ = (now > free_at_ ? now : free_at_) + cost;
    charged_ = charged_ + cost;
    return free_at_;
  }
  bool busy(Time now) const { return now < free_at_; }
  Time free_at() const { return free_at_; }
  // Everything charged so far.
  Time charged() const { return charged_; }

 private:
  Time free_at_{};
  Time charged_{};
};

}  // namespace bifrost::transport::rogue
