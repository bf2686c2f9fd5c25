#pragma once
// Rate in bits per second, and the exact conversions between bytes, rate and time.
//
// Rounding rule (documented in docs/units.md and relied on by the simulator's closed-form
// tests): the serialization time of N bytes at rate R is ceil(N * 8 * 1e12 / R) picoseconds,
// computed in 128-bit integers, so it is exact for every N and R that fit their types.
#include <compare>
#include <cstdint>

#include "bifrost/core/bytes.h"
#include "bifrost/core/time.h"

namespace bifrost {

namespace detail {
// __extension__ keeps -Wpedantic quiet about the GCC/Clang 128-bit integer.
__extension__ typedef unsigned __int128 u128;
}  // namespace detail

class Rate {
 public:
  constexpr Rate() = default;

  static constexpr Rate bps(int64_t v) { return Rate(v); }
  static constexpr Rate Kbps(int64_t v) { return Rate(v * 1'000); }
  static constexpr Rate Mbps(int64_t v) { return Rate(v * 1'000'000); }
  static constexpr Rate Gbps(int64_t v) { return Rate(v * 1'000'000'000); }

  constexpr int64_t bits_per_second() const { return bps_; }
  constexpr double gbps() const { return static_cast<double>(bps_) / 1e9; }

  constexpr auto operator<=>(const Rate&) const = default;
  constexpr Rate operator*(int64_t k) const { return Rate(bps_ * k); }
  constexpr Rate operator/(int64_t k) const { return Rate(bps_ / k); }
  constexpr Rate operator+(Rate o) const { return Rate(bps_ + o.bps_); }
  constexpr Rate operator-(Rate o) const { return Rate(bps_ - o.bps_); }

 private:
  constexpr explicit Rate(int64_t v) : bps_(v) {}
  int64_t bps_ = 0;
};

// Time to put `n` bytes on a wire of rate `r`, rounded up to the next picosecond.
constexpr Time serialization_time(Bytes n, Rate r) {
  using detail::u128;
  const u128 num = static_cast<u128>(n.count()) * 8u * 1'000'000'000'000u;
  const u128 den = static_cast<u128>(r.bits_per_second());
  return Time::ps(static_cast<int64_t>((num + den - 1) / den));
}

// Whole bytes that rate `r` delivers in `t`, rounded down (a partial byte has not arrived).
constexpr Bytes bytes_in(Time t, Rate r) {
  using detail::u128;
  if (t <= Time::zero()) return Bytes(0);
  const u128 bits = static_cast<u128>(t.picoseconds()) * static_cast<u128>(r.bits_per_second());
  return Bytes(static_cast<uint64_t>(bits / (8u * static_cast<u128>(1'000'000'000'000u))));
}

// Rate that moves `n` bytes in `t`, rounded down to whole bits per second.
constexpr Rate rate_of(Bytes n, Time t) {
  using detail::u128;
  const u128 num = static_cast<u128>(n.count()) * 8u * 1'000'000'000'000u;
  return Rate::bps(static_cast<int64_t>(num / static_cast<u128>(t.picoseconds())));
}

}  // namespace bifrost
