#pragma once
// Checks and steps shared by the traffic generators.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bifrost/core/bytes.h"
#include "bifrost/core/rng.h"
#include "bifrost/core/time.h"
#include "bifrost/sim/workload/flow.h"

namespace bifrost::sim::workload::detail {

// "incast" or "incast \"tag\"": how errors name the generator.
std::string generator_label(std::string_view kind, std::string_view tag);

// Each throws Error prefixed with `label`.
void check_priority(uint8_t priority, const std::string& label);
void check_hosts(const std::vector<uint32_t>& hosts, std::string_view role, std::size_t min_count,
                 const std::string& label);
void check_size(Bytes size, const std::string& label);
void check_not_negative(Time t, std::string_view name, const std::string& label);

// start plus a uniform draw from [0, jitter] picoseconds (no draw when jitter is zero).
Time jittered(Time start, Time jitter, RandomStream& rng);

// Orders flows by start time (stable) and numbers them 0, 1, ...
void order_by_start(std::vector<Flow>& flows);

}  // namespace bifrost::sim::workload::detail
