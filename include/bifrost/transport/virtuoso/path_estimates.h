#pragma once
// Path capacity estimates kept per host pair (§3.5: "probes the path capacity using historical
// information"), so that a second connection between the same hosts starts without probing.
// One cache may serve every connection of a process; it counts what it saved.
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "bifrost/world/address.h"

namespace bifrost::transport::virtuoso {

class PathEstimateCache {
 public:
  // Bit/s per path from `local` (a host's primary address) to `peer`, if measured.
  std::optional<std::vector<double>> find(world::Ipv4 local, world::Ipv4 peer) const;
  void store(world::Ipv4 local, world::Ipv4 peer, std::vector<double> capacity);

  uint64_t hits() const { return hits_; }  // look-ups that found an estimate

 private:
  std::map<std::pair<uint32_t, uint32_t>, std::vector<double>> estimates_;
  mutable uint64_t hits_ = 0;
};

}  // namespace bifrost::transport::virtuoso
