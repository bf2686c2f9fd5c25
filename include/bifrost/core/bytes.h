#pragma once
// Bytes: an unsigned 64-bit byte count, kept distinct from plain integers so that a count of
// packets, bits or bytes cannot be mixed up silently.
#include <compare>
#include <cstdint>

namespace bifrost {

class Bytes {
 public:
  constexpr Bytes() = default;
  constexpr explicit Bytes(uint64_t v) : n_(v) {}

  static constexpr Bytes KiB(uint64_t v) { return Bytes(v << 10); }
  static constexpr Bytes MiB(uint64_t v) { return Bytes(v << 20); }
  static constexpr Bytes GiB(uint64_t v) { return Bytes(v << 30); }

  constexpr uint64_t count() const { return n_; }
  constexpr uint64_t bits() const { return n_ * 8; }

  constexpr auto operator<=>(const Bytes&) const = default;
  constexpr Bytes operator+(Bytes o) const { return Bytes(n_ + o.n_); }
  // Saturates at zero: a byte count never goes negative.
  constexpr Bytes operator-(Bytes o) const { return Bytes(n_ > o.n_ ? n_ - o.n_ : 0); }
  constexpr Bytes& operator+=(Bytes o) {
    n_ += o.n_;
    return *this;
  }
  constexpr Bytes& operator-=(Bytes o) {
    *this = *this - o;
    return *this;
  }
  constexpr Bytes operator*(uint64_t k) const { return Bytes(n_ * k); }
  constexpr Bytes operator/(uint64_t k) const { return Bytes(n_ / k); }

 private:
  uint64_t n_ = 0;
};

namespace literals {
constexpr Bytes operator""_B(unsigned long long v) {
  return Bytes(v);
}
constexpr Bytes operator""_KiB(unsigned long long v) {
  return Bytes::KiB(v);
}
constexpr Bytes operator""_MiB(unsigned long long v) {
  return Bytes::MiB(v);
}
}  // namespace literals

}  // namespace bifrost
