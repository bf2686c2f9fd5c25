#pragma once
// The NIC configuration of one host: its own (a NIC-generation profile, [nic.profile]) or the
// template every other host shares.
#include <cstdint>
#include <unordered_map>

#include "bifrost/rnic/device.h"

namespace bifrost::sim::detail {

using DeviceByHost = std::unordered_map<uint32_t, rnic::DeviceConfig>;

inline rnic::DeviceConfig host_device(const rnic::DeviceConfig& common, const DeviceByHost& own,
                                      uint32_t host) {
  const auto it = own.find(host);
  return it == own.end() ? common : it->second;
}

}  // namespace bifrost::sim::detail
