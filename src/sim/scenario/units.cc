#include "bifrost/sim/scenario/units.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <string>

#include "bifrost/core/error.h"
#include "bifrost/sim/workload/number_text.h"

namespace bifrost::sim::scenario {

namespace {

using workload::DecimalStatus;

struct Unit {
  std::string_view name;
  uint64_t base_units;  // how many base units (bps, ps, bytes, mm) one of this unit is
};

struct Quantity {
  std::string_view kind;     // "rate"
  std::string_view example;  // "100Gbps"
  std::string_view base;     // "bits per second"
  const Unit* units;
  std::size_t unit_count;
};

bool same_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
           return lower(x) == lower(y);
         });
}

std::string unit_list(const Quantity& q) {
  std::string out;
  for (std::size_t i = 0; i < q.unit_count; ++i) {
    if (i > 0) out += ", ";
    out += q.units[i].name;
  }
  return out;
}

// The value of `text` in base units; throws Error describing what is wrong with it.
uint64_t parse_quantity(std::string_view text, const Quantity& q) {
  const std::size_t split = text.find_first_not_of("0123456789.");
  const std::string_view number = text.substr(0, split);
  const std::string_view unit = split == std::string_view::npos ? "" : text.substr(split);
  if (number.empty() || unit.empty()) {
    throw Error("\"{}\" is not a {}: expected a number followed by a unit, such as \"{}\"", text,
                q.kind, q.example);
  }
  const Unit* found = nullptr;
  for (std::size_t i = 0; i < q.unit_count; ++i) {
    if (q.units[i].name == unit) found = &q.units[i];
  }
  if (found == nullptr) {
    std::string hint;
    for (std::size_t i = 0; i < q.unit_count; ++i) {
      if (same_ignoring_case(q.units[i].name, unit)) {
        hint = fmt::format(" (units are case-sensitive: did you mean \"{}\"?)", q.units[i].name);
      }
    }
    throw Error("\"{}\" has an unknown {} unit \"{}\"; valid units: {}{}", text, q.kind, unit,
                unit_list(q), hint);
  }
  const auto limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  const auto value = workload::scale_decimal(number, found->base_units, limit);
  switch (value.status) {
    case DecimalStatus::ok:
      return value.value;
    case DecimalStatus::not_a_number:
      throw Error("\"{}\" is not a {}: \"{}\" is not a decimal number", text, q.kind, number);
    case DecimalStatus::not_whole:
      throw Error("\"{}\" is not a whole number of {}", text, q.base);
    case DecimalStatus::too_large:
      break;
  }
  throw Error("\"{}\" is too large a {}", text, q.kind);
}

constexpr std::array<Unit, 5> kRateUnits = {{{"bps", 1},
                                             {"Kbps", 1'000},
                                             {"Mbps", 1'000'000},
                                             {"Gbps", 1'000'000'000},
                                             {"Tbps", 1'000'000'000'000}}};
constexpr std::array<Unit, 5> kTimeUnits = {
    {{"ps", 1}, {"ns", 1'000}, {"us", 1'000'000}, {"ms", 1'000'000'000}, {"s", 1'000'000'000'000}}};
constexpr std::array<Unit, 7> kByteUnits = {{{"B", 1},
                                             {"KB", 1'000},
                                             {"MB", 1'000'000},
                                             {"GB", 1'000'000'000},
                                             {"KiB", uint64_t{1} << 10},
                                             {"MiB", uint64_t{1} << 20},
                                             {"GiB", uint64_t{1} << 30}}};
constexpr std::array<Unit, 2> kLengthUnits = {{{"m", 1'000}, {"km", 1'000'000}}};

}  // namespace

Rate parse_rate(std::string_view text) {
  const Quantity q{"rate", "100Gbps", "bits per second", kRateUnits.data(), kRateUnits.size()};
  return Rate::bps(static_cast<int64_t>(parse_quantity(text, q)));
}

Time parse_time(std::string_view text) {
  const Quantity q{"time", "1us", "picoseconds", kTimeUnits.data(), kTimeUnits.size()};
  return Time::ps(static_cast<int64_t>(parse_quantity(text, q)));
}

Bytes parse_bytes(std::string_view text) {
  const Quantity q{"size", "12MB", "bytes", kByteUnits.data(), kByteUnits.size()};
  return Bytes(parse_quantity(text, q));
}

Length parse_length(std::string_view text) {
  const Quantity q{"length", "10km", "millimetres", kLengthUnits.data(), kLengthUnits.size()};
  return Length::millimeters(static_cast<int64_t>(parse_quantity(text, q)));
}

}  // namespace bifrost::sim::scenario
