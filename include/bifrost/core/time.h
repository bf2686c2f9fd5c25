#pragma once
// Time: a signed 64-bit count of picoseconds. Integer time keeps the simulator exact and
// deterministic; 2^63 ps is about 106 days of simulated time.
#include <compare>
#include <cstdint>
#include <limits>

namespace bifrost {

class Time {
 public:
  constexpr Time() = default;

  static constexpr Time ps(int64_t v) { return Time(v); }
  static constexpr Time ns(int64_t v) { return Time(v * 1'000); }
  static constexpr Time us(int64_t v) { return Time(v * 1'000'000); }
  static constexpr Time ms(int64_t v) { return Time(v * 1'000'000'000); }
  static constexpr Time s(int64_t v) { return Time(v * 1'000'000'000'000); }
  // Rounds to the nearest picosecond, halves away from zero; for configuration input, never for
  // hot paths. Rounds the exact fractional part: adding 0.5 before truncating goes wrong where
  // p + 0.5 is not representable (odd picosecond counts between 2^52 and 2^53).
  static constexpr Time from_seconds(double seconds) {
    const double p = seconds * 1e12;
    auto whole = static_cast<int64_t>(p);
    const double frac = p - static_cast<double>(whole);
    if (frac >= 0.5) ++whole;
    if (frac <= -0.5) --whole;
    return Time(whole);
  }
  static constexpr Time zero() { return Time(0); }
  static constexpr Time max() { return Time(std::numeric_limits<int64_t>::max()); }

  constexpr int64_t picoseconds() const { return ps_; }
  constexpr double nanoseconds() const { return static_cast<double>(ps_) / 1e3; }
  constexpr double microseconds() const { return static_cast<double>(ps_) / 1e6; }
  constexpr double seconds() const { return static_cast<double>(ps_) / 1e12; }

  constexpr auto operator<=>(const Time&) const = default;
  constexpr Time operator+(Time o) const { return Time(ps_ + o.ps_); }
  constexpr Time operator-(Time o) const { return Time(ps_ - o.ps_); }
  constexpr Time& operator+=(Time o) {
    ps_ += o.ps_;
    return *this;
  }
  constexpr Time& operator-=(Time o) {
    ps_ -= o.ps_;
    return *this;
  }
  constexpr Time operator*(int64_t k) const { return Time(ps_ * k); }
  constexpr Time operator/(int64_t k) const { return Time(ps_ / k); }
  constexpr int64_t operator/(Time o) const { return ps_ / o.ps_; }
  constexpr Time operator-() const { return Time(-ps_); }

 private:
  constexpr explicit Time(int64_t v) : ps_(v) {}
  int64_t ps_ = 0;
};

constexpr Time operator*(int64_t k, Time t) {
  return t * k;
}

}  // namespace bifrost
