#pragma once
// RED-style ECN marking on the instantaneous egress queue length, per priority: never at or
// below kmin, probability rising linearly from 0 to pmax between kmin and kmax, always at or
// above kmax. Only ECT packets (ECN field 1 or 2) are marked; they become CE (3).
#include <cstdint>

#include "bifrost/core/bytes.h"
#include "bifrost/core/rng.h"

namespace bifrost::net {

struct RedEcnConfig {
  bool enabled = false;
  Bytes kmin{};
  Bytes kmax{};
  double pmax = 0;
};

inline constexpr uint8_t kEcnNotEct = 0;
inline constexpr uint8_t kEcnCe = 3;
inline constexpr bool is_ect(uint8_t ecn) {
  return ecn == 1 || ecn == 2;
}

class RedMarker {
 public:
  // Throws Error unless kmin < kmax and pmax is in [0, 1] (when enabled).
  explicit RedMarker(const RedEcnConfig& config);

  bool enabled() const { return config_.enabled; }
  // Probability of marking an ECT packet that finds `queue` bytes ahead of it.
  double probability(Bytes queue) const;
  // Draws from `rng` only between kmin and kmax.
  bool should_mark(Bytes queue, RandomStream& rng) const;

 private:
  RedEcnConfig config_;
};

}  // namespace bifrost::net
