#pragma once
// Field checks shared by the flow-file readers; each throws Error naming "name:line".
#include <cstdint>
#include <optional>
#include <string_view>

#include "bifrost/core/bytes.h"
#include "bifrost/core/time.h"

namespace bifrost::sim::workload::detail {

struct LineRef {
  std::string_view name;
  std::size_t line;
};

// A host index: digits, below `limit` when given (`limit_what` says where the limit comes from).
uint32_t parse_host(std::string_view text, LineRef at, std::optional<uint32_t> limit,
                    std::string_view limit_what);
// A count or other whole number: digits only, at most `max`.
uint64_t parse_count(std::string_view text, std::string_view what, uint64_t max, LineRef at);
// A flow size: digits, at least 1.
Bytes parse_flow_size(std::string_view text, LineRef at);
// A decimal `text` in units of `ps_per_unit` picoseconds, exactly representable in picoseconds.
Time parse_time_in(std::string_view text, uint64_t ps_per_unit, std::string_view unit_name,
                   std::string_view what, LineRef at);
// A priority class 0..7.
uint8_t parse_priority(std::string_view text, std::string_view what, LineRef at);
void check_not_self(uint32_t src, uint32_t dst, LineRef at);

}  // namespace bifrost::sim::workload::detail
