#pragma once
// The parts of the scenario parser, one per top-level table.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "bifrost/sim/scenario/scenario.h"
#include "toml_reader.h"

namespace bifrost::sim::scenario::detail {

SimulationConfig parse_simulation(const TableReader& r);
Topology parse_topology(const TableReader& r);
// [topology] host_aliases (any kind), 0 when absent.
uint32_t parse_host_aliases(const TableReader& r);
// [routing] mode; "source" needs aliases to pin (host_aliases >= 1).
RoutingMode parse_routing(const TableReader& r, uint32_t host_aliases);
SwitchConfig parse_switch(const TableReader& r, Bytes mtu, const Topology& topology);
// [switch.flow_control]: one table per link class; `switches` holds the rest of [switch].
std::vector<LinkClassFlowControl> parse_flow_control(const TableReader& r,
                                                     const SwitchConfig& switches, Bytes mtu,
                                                     const Topology& topology);
// [switch.border] (two_dc only); nullopt for partition = "shared".
std::optional<BorderBufferConfig> parse_border(const TableReader& r, Bytes mtu,
                                               const Topology& topology);
// A static border partition has no pool for a dynamic PFC threshold on the links that end at
// the border switches; `r` is the [switch.border] table.
void check_border_flow_control(const TableReader& r, const SwitchConfig& s);
// What a port's own buffer settings on `link_class` must stay below: [switch] buffer, or no
// cap on the dci links when the border switches are a static partition (their buffer is the
// sum of those settings).
Bytes port_buffer_cap(const SwitchConfig& s, const Topology& topology, std::string_view link_class);
// A PFC table: [switch.pfc] (lead_key "enabled") or a link class's (lead_key "kind"). Leaves
// `enabled` true; the caller reads its own lead key.
PfcConfig parse_pfc(const TableReader& r, Bytes buffer, Bytes mtu, std::string_view lead_key);
// "123 bytes".
std::string bytes_text(Bytes b);
NicConfig parse_nic(const TableReader& r, Bytes mtu, const Topology& topology);
// The [nic.profile] table; `nic` is the rest of [nic], already parsed.
std::vector<NicProfileSpec> parse_nic_profiles(const TableReader& r, const NicConfig& nic,
                                               const Topology& topology);
// DCQCN's tunable constants, each key `prefix` + its name ("dcqcn_g" in [nic], "g" in
// [transport.cc]); the cnp scope is [nic]'s alone.
void read_dcqcn_constants(const TableReader& r, std::string_view prefix, DcqcnSpec& d);
// [transport]; a Bifröst kind needs the soft RNIC model of `nic`.
TransportSpec parse_transport(const TableReader& r, const NicConfig& nic);
// The congestion control of `transport` (its kind already read): [transport] cc = "kind", or
// the [transport.cc] table with the kind's parameter keys; RoGUE's Vegas keys may also stand
// in [transport] itself.
// `start`: the configuration the keys apply to (a profile's; default: the algorithms' own).
transport::CcConfig parse_cc(const TableReader& r, const NicConfig& nic, TransportKind transport,
                             const transport::CcConfig& start = {});
// [transport] of kind "virtuoso" (parse_virtuoso.cc).
VirtuosoSpec parse_virtuoso(const TableReader& r);
// Virtuoso's paths need host aliases: paths <= host_aliases (path i uses alias i + 1).
void check_virtuoso_addressing(const TableReader& r, const VirtuosoSpec& spec,
                               const Addressing& addressing);
WorkloadConfig parse_workload(const TableReader& r, std::size_t index, const Topology& topology,
                              const SimulationConfig& simulation,
                              const std::filesystem::path& base_dir);
// [upgrade]; `scenario` holds every other table, already parsed.
UpgradeConfig parse_upgrade(const TableReader& r, const Scenario& scenario);
// [metrics]; `throughput_links` must name link classes of `topology`.
MetricsConfig parse_metrics(const TableReader& r, const Topology& topology);

}  // namespace bifrost::sim::scenario::detail
