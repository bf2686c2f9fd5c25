#include "bifrost/transport/virtuoso/path_oracle.h"

#include "bifrost/core/error.h"

namespace bifrost::transport::virtuoso {

namespace {
constexpr uint32_t kFirstPort = 49152;
constexpr uint32_t kPorts = 65536 - kFirstPort;
}  // namespace

std::vector<uint16_t> choose_source_ports(const PathOracle& oracle,
                                          std::span<const world::Ipv4> local,
                                          std::span<const world::Ipv4> peer, uint16_t start) {
  if (local.size() != peer.size()) {
    throw Error("virtuoso: {} local and {} peer addresses", local.size(), peer.size());
  }
  const uint32_t first = start < kFirstPort ? 0 : start - kFirstPort;
  std::vector<uint16_t> ports;
  for (uint32_t path = 0; path < local.size(); ++path) {
    bool found = false;
    for (uint32_t i = 0; i < kPorts && !found; ++i) {
      const auto port = static_cast<uint16_t>(kFirstPort + (first + i) % kPorts);
      if (oracle(local[path], peer[path], port) == path) {
        ports.push_back(port);
        found = true;
      }
    }
    if (!found) {
      throw Error("virtuoso: no UDP source port takes {} -> {} onto path {} (ECMP)",
                  world::to_string(local[path]), world::to_string(peer[path]), path);
    }
  }
  return ports;
}

}  // namespace bifrost::transport::virtuoso
