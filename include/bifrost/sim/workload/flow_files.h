#pragma once
// Flow lists from files, so that workloads made for other simulators run unchanged.
//
//  - htsim connection matrix (Broadcom/csg-htsim, sim/datacenter/connection_matrix.cpp):
//      Nodes <n>
//      Connections <c>
//      <src>-><dst> [id <k>] start <t> size <bytes> [prio <class>]
//    '#' lines are comments. "Triggers 0" and "Failures 0" header lines are accepted; triggers,
//    failures and trigger-started flows are not (every bifrost flow starts at its time).
//    The unit of `start` is HtsimTimeUnit: picoseconds by default, as in htsim's current loader
//    and its generator scripts; microseconds for files written by htsim's ConnectionMatrix::save
//    and older loaders, which used microseconds.
//  - HPCC ns-3 simulator (alibaba-edu/High-Precision-Congestion-Control, traffic_gen/):
//      <flow count>
//      <src> <dst> <pg> <dport> <size_bytes> <start_seconds>
//    pg (priority group) becomes the priority class; dport is checked and dropped.
//  - bifrost flow CSV, the format write_flow_csv writes:
//      id,src,dst,size_bytes,start_ps,priority,tag
//
// The readers take the whole text and a name for messages, so they run on any bytes (the fuzz
// target feeds them directly). Every problem is a bifrost::Error naming "name:line" and what
// was expected; a count that disagrees with the header is an error. Flows come back in file
// order with ids 0, 1, ... (htsim ids and CSV ids are checked, see each function).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bifrost/sim/workload/flow.h"

namespace bifrost::sim::workload {

enum class HtsimTimeUnit { picoseconds, microseconds };
enum class FlowFileFormat { htsim, hpcc, csv };

struct FlowFileOptions {
  HtsimTimeUnit htsim_time_unit = HtsimTimeUnit::picoseconds;
  // When set, every host index must be below it (the topology's host count).
  std::optional<uint32_t> host_count;
};

// htsim `id` values, when given, must be positive and distinct; they are not kept.
std::vector<Flow> parse_htsim_flows(std::string_view text, std::string_view name,
                                    const FlowFileOptions& options = {});
std::vector<Flow> parse_hpcc_flows(std::string_view text, std::string_view name,
                                   const FlowFileOptions& options = {});
// CSV ids must be distinct and are kept as written.
std::vector<Flow> parse_flow_csv(std::string_view text, std::string_view name,
                                 const FlowFileOptions& options = {});

// The CSV text of `flows`, header first. Throws Error for a tag that is not a valid tag.
std::string format_flow_csv(const std::vector<Flow>& flows);
// Tags are letters, digits and _ - . : / so a CSV field never needs quoting.
bool is_valid_tag(std::string_view tag);

// Reads and parses a flow file; throws Error naming the path when it cannot be read.
std::vector<Flow> load_flow_file(const std::filesystem::path& path, FlowFileFormat format,
                                 const FlowFileOptions& options = {});
void write_flow_csv(const std::vector<Flow>& flows, const std::filesystem::path& path);

}  // namespace bifrost::sim::workload
