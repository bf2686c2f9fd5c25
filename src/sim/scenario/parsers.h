#pragma once
// The parts of the scenario parser, one per top-level table.
#include <cstddef>
#include <filesystem>

#include "bifrost/sim/scenario/scenario.h"
#include "toml_reader.h"

namespace bifrost::sim::scenario::detail {

SimulationConfig parse_simulation(const TableReader& r);
Topology parse_topology(const TableReader& r);
SwitchConfig parse_switch(const TableReader& r, Bytes mtu);
NicConfig parse_nic(const TableReader& r, Bytes mtu);
WorkloadConfig parse_workload(const TableReader& r, std::size_t index, const Topology& topology,
                              const SimulationConfig& simulation,
                              const std::filesystem::path& base_dir);
MetricsConfig parse_metrics(const TableReader& r);

}  // namespace bifrost::sim::scenario::detail
