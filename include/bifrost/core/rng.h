#pragma once
// Reproducible random streams. Every component draws from its own stream, derived from the run's
// master seed and the component's name, so adding a component (or a draw in one) never changes
// another component's numbers. The generator is xoshiro256** seeded through SplitMix64.
#include <cstdint>
#include <string_view>

#include "bifrost/core/time.h"

namespace bifrost {

class RandomStream {
 public:
  // A stream named `name` under `master_seed`; equal arguments give equal sequences.
  RandomStream(uint64_t master_seed, std::string_view name);
  // A stream from a raw 64-bit seed (for derived streams and tests).
  explicit RandomStream(uint64_t seed);

  // A child stream, independent of this one and of siblings with other names.
  RandomStream fork(std::string_view name) const;

  uint64_t next_u64();
  // Uniform in [0, 1) with 53 bits of precision.
  double uniform();
  // Uniform integer in [lo, hi], inclusive, without modulo bias; throws Error if lo > hi.
  uint64_t uniform_int(uint64_t lo, uint64_t hi);
  bool bernoulli(double p) { return uniform() < p; }
  // Exponentially distributed with the given mean.
  double exponential(double mean);
  // Exponential inter-arrival time with the given mean, rounded to picoseconds (at least 1 ps).
  Time exponential_time(Time mean);

  uint64_t seed() const { return seed_; }

 private:
  uint64_t seed_;
  uint64_t s_[4];
};

// Stable 64-bit hash of a name (FNV-1a), used to derive stream seeds.
uint64_t hash_name(std::string_view name);
// SplitMix64 finaliser: a good bijective mix of 64 bits.
uint64_t mix64(uint64_t x);

}  // namespace bifrost
