#include "bifrost/core/rng.h"

#include <cmath>

#include "bifrost/core/error.h"

namespace bifrost {

uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t hash_name(std::string_view name) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001B3ull;
  }
  return h;
}

RandomStream::RandomStream(uint64_t master_seed, std::string_view name)
    : RandomStream(mix64(master_seed) ^ hash_name(name)) {}

RandomStream::RandomStream(uint64_t seed) : seed_(seed) {
  uint64_t x = seed;
  for (auto& word : s_) {
    x = mix64(x);
    word = x;
  }
}

RandomStream RandomStream::fork(std::string_view name) const {
  return RandomStream(mix64(seed_ ^ hash_name(name)));
}

uint64_t RandomStream::next_u64() {
  auto rotl = [](uint64_t v, int k) { return (v << k) | (v >> (64 - k)); };
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double RandomStream::uniform() {
  return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
}

uint64_t RandomStream::uniform_int(uint64_t lo, uint64_t hi) {
  __extension__ typedef unsigned __int128 u128;  // __extension__: allowed under -Wpedantic
  if (lo > hi) throw Error("uniform_int: empty range [{}, {}], need lo <= hi", lo, hi);
  const uint64_t span = hi - lo;
  if (span == UINT64_MAX) return next_u64();
  const uint64_t n = span + 1;
  // Lemire's nearly-divisionless method: rejection keeps the result unbiased.
  u128 m = static_cast<u128>(next_u64()) * n;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < n) {
    const uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<u128>(next_u64()) * n;
      low = static_cast<uint64_t>(m);
    }
  }
  return lo + static_cast<uint64_t>(m >> 64);
}

double RandomStream::exponential(double mean) {
  // 1 - uniform() is in (0, 1], so the logarithm is finite.
  return -mean * std::log(1.0 - uniform());
}

Time RandomStream::exponential_time(Time mean) {
  const double ps = exponential(static_cast<double>(mean.picoseconds()));
  const auto rounded = static_cast<int64_t>(ps + 0.5);
  return Time::ps(rounded < 1 ? 1 : rounded);
}

}  // namespace bifrost
