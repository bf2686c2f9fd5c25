#pragma once
// Host selections in workload tables: "all", an inclusive range "A..B", or an array of host
// indices. Every index must name a host of the topology, and none may repeat.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "toml_reader.h"

namespace bifrost::sim::scenario::detail {

// nullopt when `key` is absent.
std::optional<std::vector<uint32_t>> host_set(const TableReader& r, std::string_view key,
                                              uint64_t host_count);
// One host index.
std::optional<uint32_t> host_index(const TableReader& r, std::string_view key, uint64_t host_count);
// Hosts 0 .. host_count - 1.
std::vector<uint32_t> all_hosts(uint64_t host_count);

}  // namespace bifrost::sim::scenario::detail
