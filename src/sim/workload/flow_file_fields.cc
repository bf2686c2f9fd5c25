#include "flow_file_fields.h"

#include <limits>

#include "bifrost/core/error.h"
#include "bifrost/sim/workload/flow.h"
#include "bifrost/sim/workload/number_text.h"
#include "text_lines.h"

namespace bifrost::sim::workload::detail {

uint32_t parse_host(std::string_view text, LineRef at, std::optional<uint32_t> limit,
                    std::string_view limit_what) {
  const auto value = parse_unsigned(text);
  if (!value || *value > std::numeric_limits<uint32_t>::max()) {
    throw Error("{}:{}: host {} is not a host index (a whole number)", at.name, at.line,
                quote(text));
  }
  if (limit && *value >= *limit) {
    if (*limit == 0) {
      throw Error("{}:{}: host {} is out of range; {} allows no hosts", at.name, at.line, *value,
                  limit_what);
    }
    throw Error("{}:{}: host {} is out of range; {} allows hosts 0..{}", at.name, at.line, *value,
                limit_what, *limit - 1);
  }
  return static_cast<uint32_t>(*value);
}

uint64_t parse_count(std::string_view text, std::string_view what, uint64_t max, LineRef at) {
  const auto value = parse_unsigned(text);
  if (!value || *value > max) {
    throw Error("{}:{}: {} {} is not a whole number from 0 to {}", at.name, at.line, what,
                quote(text), max);
  }
  return *value;
}

Bytes parse_flow_size(std::string_view text, LineRef at) {
  const auto value = parse_unsigned(text);
  if (!value || *value == 0) {
    throw Error("{}:{}: size {} is not a flow size (a whole number of bytes, at least 1)", at.name,
                at.line, quote(text));
  }
  return Bytes(*value);
}

Time parse_time_in(std::string_view text, uint64_t ps_per_unit, std::string_view unit_name,
                   std::string_view what, LineRef at) {
  const auto limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  const ScaledDecimal v = scale_decimal(text, ps_per_unit, limit);
  switch (v.status) {
    case DecimalStatus::ok:
      return Time::ps(static_cast<int64_t>(v.value));
    case DecimalStatus::not_a_number:
      throw Error("{}:{}: {} {} is not a decimal number of {} (like 12 or 0.5)", at.name, at.line,
                  what, quote(text), unit_name);
    case DecimalStatus::not_whole:
      throw Error("{}:{}: {} {} {} is finer than the 1 ps resolution", at.name, at.line, what,
                  quote(text), unit_name);
    case DecimalStatus::too_large:
      break;
  }
  throw Error("{}:{}: {} {} {} is beyond the end of simulated time (about 106 days)", at.name,
              at.line, what, quote(text), unit_name);
}

uint8_t parse_priority(std::string_view text, std::string_view what, LineRef at) {
  const auto value = parse_unsigned(text);
  if (!value || *value >= kPriorityClasses) {
    throw Error("{}:{}: {} {} is not a priority class 0..{}", at.name, at.line, what, quote(text),
                kPriorityClasses - 1);
  }
  return static_cast<uint8_t>(*value);
}

void check_not_self(uint32_t src, uint32_t dst, LineRef at) {
  if (src == dst) {
    throw Error("{}:{}: source and destination are both host {}", at.name, at.line, src);
  }
}

}  // namespace bifrost::sim::workload::detail
