#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "bifrost/sim/metrics/writers.h"
#include "fasr_pool_json.h"

namespace bifrost::sim::metrics {

std::string fasr_pool_csv(const FasrPoolMetrics& pool) {
  std::string out =
      "nic,peak_units,peak_blocks,peak_bytes,mean_units,mean_blocks,mean_bytes,observed_ps,"
      "units_exhausted_ps,unit_allocations,block_allocations,fallbacks,unit_fallbacks,"
      "fast_recoveries,slow_recoveries\n";
  auto it = std::back_inserter(out);
  for (const FasrPoolNic& n : pool.nics) {
    // Host names are letters and digits (h0, h1, ...): no quoting needed.
    fmt::format_to(it, "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", n.nic, n.peak_units,
                   n.peak_blocks, n.peak_bytes, n.mean_units, n.mean_blocks, n.mean_bytes,
                   n.observed.picoseconds(), n.units_exhausted.picoseconds(), n.unit_allocations,
                   n.block_allocations, n.fallbacks, n.unit_fallbacks, n.fast_recoveries,
                   n.slow_recoveries);
  }
  return out;
}

namespace detail {

nlohmann::ordered_json fasr_pool_summary(const FasrPoolMetrics& pool) {
  uint64_t peak_units = 0, peak_blocks = 0, peak_bytes = 0;
  double mean_units = 0, mean_blocks = 0, mean_bytes = 0, busiest_mean_bytes = 0;
  Time observed, exhausted;
  uint64_t unit_allocations = 0, block_allocations = 0, fallbacks = 0, unit_fallbacks = 0;
  uint64_t fast = 0, slow = 0;
  for (const FasrPoolNic& n : pool.nics) {
    peak_units = std::max(peak_units, n.peak_units);
    peak_blocks = std::max(peak_blocks, n.peak_blocks);
    peak_bytes = std::max(peak_bytes, n.peak_bytes);
    mean_units += n.mean_units;
    mean_blocks += n.mean_blocks;
    mean_bytes += n.mean_bytes;
    busiest_mean_bytes = std::max(busiest_mean_bytes, n.mean_bytes);
    observed += n.observed;
    exhausted += n.units_exhausted;
    unit_allocations += n.unit_allocations;
    block_allocations += n.block_allocations;
    fallbacks += n.fallbacks;
    unit_fallbacks += n.unit_fallbacks;
    fast += n.fast_recoveries;
    slow += n.slow_recoveries;
  }
  const auto nics = static_cast<double>(std::max<size_t>(pool.nics.size(), 1));
  nlohmann::ordered_json j;
  j["units"] = pool.units;
  j["blocks"] = pool.blocks;
  j["block_bits"] = pool.block_bits;
  j["pool_bytes"] = pool.pool_bytes;
  j["nics"] = pool.nics.size();
  j["peak_units"] = peak_units;
  j["peak_blocks"] = peak_blocks;
  j["peak_bytes"] = peak_bytes;
  j["mean_units"] = mean_units / nics;
  j["mean_blocks"] = mean_blocks / nics;
  j["mean_bytes"] = mean_bytes / nics;
  j["busiest_mean_bytes"] = busiest_mean_bytes;
  j["units_exhausted_fraction"] = observed > Time::zero()
                                      ? static_cast<double>(exhausted.picoseconds()) /
                                            static_cast<double>(observed.picoseconds())
                                      : 0.0;
  j["unit_allocations"] = unit_allocations;
  j["block_allocations"] = block_allocations;
  j["fallbacks"] = fallbacks;
  j["unit_fallbacks"] = unit_fallbacks;
  j["fast_recoveries"] = fast;
  j["slow_recoveries"] = slow;
  return j;
}

}  // namespace detail
}  // namespace bifrost::sim::metrics
