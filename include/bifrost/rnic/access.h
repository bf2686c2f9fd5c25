#pragma once
// Access rights of a memory region or a queue pair, as a bitmask like ibverbs' IBV_ACCESS_*.
#include <cstdint>
#include <string>

#include "bifrost/core/bit_flags.h"

namespace bifrost::rnic {

enum class Access : uint32_t {
  none = 0,
  local_write = 1u << 0,
  remote_write = 1u << 1,
  remote_read = 1u << 2,
  remote_atomic = 1u << 3,
};

constexpr bool enable_bit_flags(Access) {
  return true;
}
using bifrost::operator|;
using bifrost::operator&;

// True if `granted` holds every right in `wanted`.
constexpr bool allows(Access granted, Access wanted) {
  return has_all(granted, wanted);
}

// "local_write|remote_read", or "none".
std::string to_string(Access access);

}  // namespace bifrost::rnic
