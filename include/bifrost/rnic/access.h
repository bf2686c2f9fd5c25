#pragma once
// Access rights of a memory region or a queue pair, as a bitmask like ibverbs' IBV_ACCESS_*.
#include <cstdint>
#include <string>

namespace bifrost::rnic {

enum class Access : uint32_t {
  none = 0,
  local_write = 1u << 0,
  remote_write = 1u << 1,
  remote_read = 1u << 2,
  remote_atomic = 1u << 3,
};

constexpr Access operator|(Access a, Access b) {
  return static_cast<Access>(static_cast<uint32_t>(a) | static_cast<uint32_t>(b));
}
constexpr Access operator&(Access a, Access b) {
  return static_cast<Access>(static_cast<uint32_t>(a) & static_cast<uint32_t>(b));
}
// True if `granted` holds every right in `wanted`.
constexpr bool allows(Access granted, Access wanted) {
  return (granted & wanted) == wanted;
}

// "local_write|remote_read", or "none".
std::string to_string(Access access);

}  // namespace bifrost::rnic
