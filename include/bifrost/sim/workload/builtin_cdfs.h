#pragma once
// The flow-size distributions bifrost knows by name. Their tables are the files in
// data/workloads/, compiled into the library, so `--workload websearch` needs no path.
#include <filesystem>
#include <memory>
#include <span>
#include <string_view>

#include "bifrost/sim/workload/flow_size_cdf.h"

namespace bifrost::sim::workload {

// "websearch" (DCTCP, SIGCOMM 2010) and "fb_hadoop" (Roy et al., SIGCOMM 2015).
std::span<const std::string_view> builtin_cdf_names();
// The built-in CDF called `name`, or nullptr if there is none.
const FlowSizeCdf* find_builtin_cdf(std::string_view name);
// Like find_builtin_cdf, but throws Error listing the valid names.
const FlowSizeCdf& builtin_cdf(std::string_view name);

// A built-in name, or else a CDF file; a relative path is taken from `base_dir`. Throws Error
// when it is neither (naming the built-ins and the path tried) or the file is malformed.
std::shared_ptr<const FlowSizeCdf> resolve_cdf(std::string_view name_or_path,
                                               const std::filesystem::path& base_dir = {});

}  // namespace bifrost::sim::workload
