#pragma once
// FaSR's shared SR pool, NIC by NIC, over a run (the FaSR paper's Fig. 10): what the soft RNICs
// counted (rnic::recovery::FasrPoolUsage and FasrPoolOccupancy), as plain numbers for
// summary.json and fasr_pool.csv.
#include <cstdint>
#include <string>
#include <vector>

#include "bifrost/core/time.h"

namespace bifrost::sim::metrics {

struct FasrPoolNic {
  std::string nic;  // the host's name
  // Bytes in use are units x 38 B + blocks x (block bits + next pointer), rounded up.
  uint64_t peak_units = 0;
  uint64_t peak_blocks = 0;
  uint64_t peak_bytes = 0;  // the most in use at once (not peak units + peak blocks)
  double mean_units = 0;    // time averages over `observed`
  double mean_blocks = 0;
  double mean_bytes = 0;
  Time observed;                  // from the NIC's creation to the end of the run
  Time units_exhausted;           // time during which every unit was taken
  uint64_t unit_allocations = 0;  // recovery episodes begun (a unit taken)
  uint64_t block_allocations = 0;
  uint64_t fallbacks = 0;       // QPs sent to go-back-N: the pool had no unit or block free
  uint64_t unit_fallbacks = 0;  // of which for want of a unit
  uint64_t fast_recoveries = 0;
  uint64_t slow_recoveries = 0;
};

struct FasrPoolMetrics {
  // The pool every NIC has (rnic::recovery::FasrPoolConfig) and its modelled size.
  uint32_t units = 0;
  uint32_t blocks = 0;
  uint32_t block_bits = 0;
  uint64_t pool_bytes = 0;
  std::vector<FasrPoolNic> nics;  // in host order
};

}  // namespace bifrost::sim::metrics
