#pragma once
// Priority class of a packet from its DSCP. The default maps dscp >> 3 (the class selector
// bits), so DSCP 24 (CS3), the usual RoCE marking, is priority 3.
#include <array>
#include <cstdint>

#include "bifrost/net/frame.h"

namespace bifrost::net {

class DscpMap {
 public:
  DscpMap();
  // Throws Error for dscp > 63 or priority > 7.
  void set(uint8_t dscp, int priority);
  int priority(uint8_t dscp) const { return table_[dscp & 63]; }

 private:
  std::array<uint8_t, 64> table_;
};

}  // namespace bifrost::net
