#pragma once
// The NIC's free-running clock, as CQE timestamps and clock queries see it. It differs from host
// time by a fixed offset and a drift, so RTT code that mixes host and NIC time is caught in
// simulation:  hw(t) = t + offset + round(t * drift_ppm / 1e6).
#include "bifrost/core/time.h"

namespace bifrost::rnic {

class HwClock {
 public:
  HwClock() = default;
  // Throws Error unless |drift_ppm| <= 1000 (real oscillators are within about 100 ppm).
  HwClock(Time offset, double drift_ppm);

  Time hw_time(Time host_time) const;
  Time offset() const { return offset_; }
  double drift_ppm() const { return drift_ppm_; }

 private:
  Time offset_;
  double drift_ppm_ = 0;
};

}  // namespace bifrost::rnic
