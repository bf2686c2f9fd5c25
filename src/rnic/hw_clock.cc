#include "bifrost/rnic/hw_clock.h"

#include <cmath>

#include "bifrost/core/error.h"

namespace bifrost::rnic {

HwClock::HwClock(Time offset, double drift_ppm) : offset_(offset), drift_ppm_(drift_ppm) {
  if (!(std::fabs(drift_ppm) <= 1000.0)) {
    throw Error("NIC clock drift {} ppm is out of range: use -1000..1000 ppm", drift_ppm);
  }
}

Time HwClock::hw_time(Time host_time) const {
  // Only the drift term goes through double: it is at most 1e-3 of host_time, so its rounding
  // error stays far below a picosecond for any representable time.
  const double drift = static_cast<double>(host_time.picoseconds()) * drift_ppm_ / 1e6;
  return host_time + offset_ + Time::ps(std::llround(drift));
}

}  // namespace bifrost::rnic
