#include "bifrost/net/dscp_map.h"

#include "bifrost/core/error.h"

namespace bifrost::net {

DscpMap::DscpMap() {
  for (unsigned d = 0; d < table_.size(); ++d) table_[d] = static_cast<uint8_t>(d >> 3);
}

void DscpMap::set(uint8_t dscp, int priority) {
  if (dscp > 63) throw Error("DSCP is a 6-bit value (0..63), got {}", dscp);
  if (priority < 0 || priority >= kPriorities) {
    throw Error("priority must be 0..7, got {} for DSCP {}", priority, dscp);
  }
  table_[dscp] = static_cast<uint8_t>(priority);
}

}  // namespace bifrost::net
