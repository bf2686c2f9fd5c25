#pragma once
// Load balancing as a plug-in (§3.5): how many bytes of a message each path carries. The
// default is the paper's eq. (1), data_i / cap_i equal over paths and summing to the message,
// in whole blocks.
#include <cstdint>
#include <span>
#include <vector>

namespace bifrost::transport::virtuoso {

class LoadBalancer {
 public:
  virtual ~LoadBalancer() = default;
  // Bytes per path of a message of `total` bytes over paths of `capacity` (bit/s, > 0), in
  // multiples of `block` except for one path's last partial block; sums to `total`.
  virtual std::vector<uint64_t> split(uint64_t total, std::span<const double> capacity,
                                      uint64_t block) const = 0;
};

// eq. (1) in whole blocks: every path first gets the whole blocks of its exact share rounded
// down, then each remaining block goes to the path that would finish it first. The result
// keeps |data_i/cap_i - data_j/cap_j| <= block / min(cap) (docs/transport.md has the proof).
class ProportionalSplit final : public LoadBalancer {
 public:
  std::vector<uint64_t> split(uint64_t total, std::span<const double> capacity,
                              uint64_t block) const override;
};

}  // namespace bifrost::transport::virtuoso
