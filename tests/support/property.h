#pragma once
// Seeds for property tests. The count comes from BIFROST_PROPERTY_SEEDS (CI sets a default;
// raise it locally for a longer search); the first seed from BIFROST_PROPERTY_SEED_BASE, so a
// failure printed as "seed N" is replayed with BIFROST_PROPERTY_SEEDS=1
// BIFROST_PROPERTY_SEED_BASE=N.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace bifrost::testing {

inline uint64_t env_u64(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return std::stoull(v);
}

inline std::vector<uint64_t> property_seeds(uint64_t default_count = 20) {
  const uint64_t count = env_u64("BIFROST_PROPERTY_SEEDS", default_count);
  const uint64_t base = env_u64("BIFROST_PROPERTY_SEED_BASE", 1);
  std::vector<uint64_t> seeds;
  for (uint64_t i = 0; i < count; ++i) seeds.push_back(base + i);
  return seeds;
}

}  // namespace bifrost::testing
