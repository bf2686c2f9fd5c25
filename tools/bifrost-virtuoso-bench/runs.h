#pragma once
// The three runs of bifrost-virtuoso-bench, each printing CSV rows (header first) to `out`.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "bifrost/core/bytes.h"
#include "bifrost/core/time.h"

namespace bifrost::virtuoso_bench {

// Table 2: the lossy chunk search per K. Pinned: no PFC, `buffer` shared per switch (dynamic
// threshold, alpha 1), the NIC's go-back-N engine, RC retry_cnt and timeout as given.
struct ChunkSearchOptions {
  std::vector<uint32_t> paths;
  Bytes buffer{1'260'000};
  uint8_t retry_cnt = 1;
  uint8_t timeout = 7;
  uint64_t initial = 16 * 1024;
  uint64_t step = 32 * 1024;
  uint32_t iterations_per_step = 4;  // iterations (one WR per path) of a size before the next
  uint64_t message_per_path = 4'000'000;
  uint64_t max_messages = 400;
  uint64_t check_wrs = 100;            // WRs posted after the search settled, counting RETRY_EXC
  bool back_off_when_settled = false;  // ChunkSearchConfig's (ours)
};
void run_chunk_search(const ChunkSearchOptions& o, std::FILE* out);

// Fig. 7: 256 KB mice on path 0 every `interval` beside an elephant on 1 path or split over
// `paths`; PFC on.
struct MiceOptions {
  uint32_t paths = 10;
  uint64_t mouse = 256 * 1024;
  Time interval = Time::ms(20);
  uint32_t mice = 50;
  uint64_t elephant_message = 8'000'000;
  Bytes buffer{12'000'000};
};
void run_mice(const MiceOptions& o, std::FILE* out);

// Fig. 8: the CPU proxy per MB for each K and message size; PFC on, no search.
struct CostOptions {
  std::vector<uint32_t> paths;
  std::vector<uint64_t> sizes;
  uint64_t bytes_per_point = 64'000'000;
  uint32_t min_messages = 4;
};
void run_cost(const CostOptions& o, std::FILE* out);

}  // namespace bifrost::virtuoso_bench
