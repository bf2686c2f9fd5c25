#pragma once
// Quantities with units, as written in scenario files: "100Gbps", "1.5us", "12MB", "10km".
//
// The form is strict: a non-negative decimal number immediately followed by a unit, no space,
// no sign, no exponent. Units are case-sensitive (Gbps, not gbps), and the value must be a whole
// number of the base unit (bits per second, picoseconds, bytes, millimetres), so "1.5ps" is an
// error rather than a silent rounding. Decimal size units are powers of 1000 (KB, MB, GB),
// binary ones powers of 1024 (KiB, MiB, GiB).
//
// Each parser throws Error with a message about the text alone; the scenario reader prefixes
// the file, line and column.
#include <compare>
#include <cstdint>
#include <string_view>

#include "bifrost/core/bytes.h"
#include "bifrost/core/rate.h"
#include "bifrost/core/time.h"

namespace bifrost::sim::scenario {

// A cable or fibre length, in whole millimetres.
class Length {
 public:
  constexpr Length() = default;
  static constexpr Length millimeters(int64_t v) { return Length(v); }
  static constexpr Length meters(int64_t v) { return Length(v * 1'000); }
  static constexpr Length kilometers(int64_t v) { return Length(v * 1'000'000); }
  constexpr int64_t millimeters() const { return mm_; }
  constexpr double meters_value() const { return static_cast<double>(mm_) / 1e3; }
  constexpr auto operator<=>(const Length&) const = default;

 private:
  constexpr explicit Length(int64_t mm) : mm_(mm) {}
  int64_t mm_ = 0;
};

// Propagation delay along fibre: light travels at about 2e8 m/s in glass (refractive index
// about 1.5), which is 5 ns per metre, exactly 5 ps per millimetre.
constexpr Time fiber_delay(Length length) {
  return Time::ps(length.millimeters() * 5);
}

// Units: bps, Kbps, Mbps, Gbps, Tbps.
Rate parse_rate(std::string_view text);
// Units: ps, ns, us, ms, s.
Time parse_time(std::string_view text);
// Units: B, KB, MB, GB, KiB, MiB, GiB.
Bytes parse_bytes(std::string_view text);
// Units: m, km.
Length parse_length(std::string_view text);

}  // namespace bifrost::sim::scenario
