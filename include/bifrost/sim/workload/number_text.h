#pragma once
// Exact parsing of the numbers found in workload files and scenario units. Decimal text is
// scaled in 128-bit integers, never through floating point, so "0.000000001" seconds is exactly
// 1000 ps and "1.5KiB" exactly 1536 bytes.
#include <cstdint>
#include <optional>
#include <string_view>

namespace bifrost::sim::workload {

// Digits only (no sign, no spaces), at most UINT64_MAX; nullopt otherwise.
std::optional<uint64_t> parse_unsigned(std::string_view text);

enum class DecimalStatus {
  ok,
  not_a_number,  // not digits with an optional single '.' followed by digits
  not_whole,     // the scaled value has a fractional part
  too_large,     // the scaled value exceeds the limit
};

struct ScaledDecimal {
  DecimalStatus status = DecimalStatus::not_a_number;
  uint64_t value = 0;
};

// The non-negative decimal `text` ("12", "0.5", "3.25"; no sign, exponent or leading '.')
// multiplied by `multiplier`, when the product is a whole number no larger than `limit`.
ScaledDecimal scale_decimal(std::string_view text, uint64_t multiplier, uint64_t limit);

}  // namespace bifrost::sim::workload
