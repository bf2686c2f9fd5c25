// Fuzz target: arbitrary bytes as an htsim connection matrix, an HPCC flow file, a bifrost flow
// CSV and a flow-size CDF file. Each reader must return its result or throw bifrost::Error,
// never crash or throw anything else; flows it returns must be valid and survive a round trip
// through the flow CSV, and a CDF it returns must sample sizes within its range.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/core/rng.h"
#include "bifrost/sim/workload/flow_files.h"
#include "bifrost/sim/workload/flow_size_cdf.h"

namespace {

using namespace bifrost::sim::workload;

void require(bool condition) {
  if (!condition) std::abort();
}

void check_flows(const std::vector<Flow>& flows, const FlowFileOptions& options) {
  for (const Flow& f : flows) {
    require(f.src != f.dst);
    require(f.size.count() >= 1);
    require(f.priority < kPriorityClasses);
    require(f.start >= bifrost::Time::zero());
    if (options.host_count) require(f.src < *options.host_count && f.dst < *options.host_count);
  }
  require(parse_flow_csv(format_flow_csv(flows), "round trip", options) == flows);
}

using Parser = std::vector<Flow> (*)(std::string_view, std::string_view, const FlowFileOptions&);

void run(Parser parse, std::string_view text, const FlowFileOptions& options) {
  std::vector<Flow> flows;
  try {
    flows = parse(text, "fuzz", options);
  } catch (const bifrost::Error&) {
    return;  // a clear rejection is the expected outcome for most inputs
  }
  check_flows(flows, options);
}

void run_cdf(std::string_view text) {
  std::optional<FlowSizeCdf> cdf;
  try {
    cdf.emplace(parse_cdf_text(text, "fuzz"));
  } catch (const bifrost::Error&) {
    return;
  }
  require(std::isfinite(cdf->mean_bytes()));
  require(cdf->mean_bytes() >= static_cast<double>(cdf->min_size().count()) - 1);
  bifrost::RandomStream rng(1, "fuzz");
  for (int i = 0; i < 16; ++i) {
    const bifrost::Bytes size = cdf->sample(rng);
    require(size >= bifrost::Bytes(1) && size <= std::max(cdf->max_size(), bifrost::Bytes(1)));
  }
}

}  // namespace

int fuzz_flow_files(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  FlowFileOptions open;
  FlowFileOptions bounded;
  bounded.host_count = 64;
  bounded.htsim_time_unit = HtsimTimeUnit::microseconds;
  for (const FlowFileOptions* options : {&open, &bounded}) {
    run(parse_htsim_flows, text, *options);
    run(parse_hpcc_flows, text, *options);
    run(parse_flow_csv, text, *options);
  }
  run_cdf(text);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  return fuzz_flow_files(data, size);
}
