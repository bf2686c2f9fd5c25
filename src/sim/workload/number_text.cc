#include "bifrost/sim/workload/number_text.h"

namespace bifrost::sim::workload {

namespace {
__extension__ typedef unsigned __int128 u128;  // __extension__: allowed under -Wpedantic

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Accumulates decimal digits into `acc`; false if the value would pass `cap`.
bool accumulate(std::string_view digits, u128& acc, u128 cap) {
  for (char c : digits) {
    acc = acc * 10 + static_cast<unsigned>(c - '0');
    if (acc > cap) return false;
  }
  return true;
}

}  // namespace

std::optional<uint64_t> parse_unsigned(std::string_view text) {
  if (text.empty()) return std::nullopt;
  u128 value = 0;
  for (char c : text) {
    if (!is_digit(c)) return std::nullopt;
  }
  if (!accumulate(text, value, UINT64_MAX)) return std::nullopt;
  return static_cast<uint64_t>(value);
}

ScaledDecimal scale_decimal(std::string_view text, uint64_t multiplier, uint64_t limit) {
  const std::size_t dot = text.find('.');
  std::string_view whole = text.substr(0, dot);
  std::string_view fraction =
      dot == std::string_view::npos ? std::string_view{} : text.substr(dot + 1);
  if (whole.empty() || (dot != std::string_view::npos && fraction.empty())) return {};
  for (char c : whole) {
    if (!is_digit(c)) return {};
  }
  for (char c : fraction) {
    if (!is_digit(c)) return {};
  }
  // Trailing zeros of the fraction change nothing and would only cost precision.
  while (!fraction.empty() && fraction.back() == '0') fraction.remove_suffix(1);
  if (fraction.size() > 19) return {DecimalStatus::not_whole, 0};

  u128 denominator = 1;
  for (std::size_t i = 0; i < fraction.size(); ++i) denominator *= 10;
  // whole * multiplier must stay within limit, so the whole part alone is bounded by limit.
  u128 integer = 0;
  if (!accumulate(whole, integer, limit)) return {DecimalStatus::too_large, 0};
  u128 frac = 0;
  accumulate(fraction, frac, ~u128{0});

  const u128 scaled_whole = integer * multiplier;
  if (scaled_whole > limit) return {DecimalStatus::too_large, 0};
  // frac < denominator <= 10^19 and multiplier < 2^64: the product fits 128 bits.
  const u128 scaled_frac = frac * multiplier;
  if (scaled_frac % denominator != 0) return {DecimalStatus::not_whole, 0};
  const u128 total = scaled_whole + scaled_frac / denominator;
  if (total > limit) return {DecimalStatus::too_large, 0};
  return {DecimalStatus::ok, static_cast<uint64_t>(total)};
}

}  // namespace bifrost::sim::workload
