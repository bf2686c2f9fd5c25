// bifrost-virtuoso-bench: Virtuoso's evaluation runs that need the library's own counters, on
// the simulated testbed of the paper's Fig. 4 (sim::VirtuosoBed: two ToRs joined by K path
// links of 1 Gb/s, hosts at 10 Gb/s, alias i pinned to path link i - 1).
//
//   bifrost-virtuoso-bench chunk-search --paths 1,2,4,6,8,9   # Table 2
//   bifrost-virtuoso-bench mice --paths 10                    # Fig. 7
//   bifrost-virtuoso-bench cost --paths 1,2,4 --sizes 65536,1048576   # Fig. 8
//
// Each prints CSV to stdout (experiments/virtuoso-chunk-search, -mice, -cost read it).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>

#include "bifrost/core/error.h"
#include "runs.h"

int main(int argc, char** argv) {
  using namespace bifrost;
  using namespace bifrost::virtuoso_bench;
  CLI::App app{"Virtuoso's Table 2 and Figs. 7, 8 on the simulated multipath testbed"};
  app.require_subcommand(1);

  ChunkSearchOptions chunk;
  chunk.paths = {1, 2, 4, 6, 8, 9};
  uint64_t chunk_buffer = chunk.buffer.count();
  unsigned retry = chunk.retry_cnt;
  unsigned timeout = chunk.timeout;
  CLI::App* search = app.add_subcommand("chunk-search", "Table 2: the lossy chunk search per K");
  search->add_option("--paths", chunk.paths, "K values")->delimiter(',');
  search->add_option("--buffer", chunk_buffer, "shared buffer per switch, bytes");
  search->add_option("--retry-cnt", retry, "RC retry count")->check(CLI::Range(0, 7));
  search->add_option("--timeout", timeout, "RC timeout exponent")->check(CLI::Range(0, 31));
  search->add_option("--initial", chunk.initial, "the search's first size, bytes");
  search->add_option("--step", chunk.step, "its linear step, bytes");
  search
      ->add_option("--iterations-per-step", chunk.iterations_per_step,
                   "successful iterations of a size before the next")
      ->check(CLI::PositiveNumber);
  search->add_option("--message-per-path", chunk.message_per_path, "MP WRITE bytes per path");
  search->add_option("--check-wrs", chunk.check_wrs, "WRs posted after settling, checked");
  search->add_flag("--back-off", chunk.back_off_when_settled,
                   "once settled, step down on RETRY_EXC (ours)");

  MiceOptions mice;
  double interval_ms = mice.interval.seconds() * 1e3;
  CLI::App* mice_cmd = app.add_subcommand("mice", "Fig. 7: mice beside an elephant");
  mice_cmd->add_option("--paths", mice.paths, "paths the elephant is split over")
      ->check(CLI::Range(2, 15));
  mice_cmd->add_option("--mouse", mice.mouse, "mouse bytes");
  mice_cmd->add_option("--interval-ms", interval_ms, "time between mice");
  mice_cmd->add_option("--mice", mice.mice, "mice per case")->check(CLI::PositiveNumber);

  CostOptions cost;
  cost.paths = {1, 2, 4, 6, 8, 10};
  cost.sizes = {64 * 1024, 1024 * 1024, 16 * 1024 * 1024, 256 * 1024 * 1024};
  CLI::App* cost_cmd = app.add_subcommand("cost", "Fig. 8: the CPU proxy per MB");
  cost_cmd->add_option("--paths", cost.paths, "K values")->delimiter(',');
  cost_cmd->add_option("--sizes", cost.sizes, "MP WRITE sizes, bytes")->delimiter(',');
  cost_cmd->add_option("--bytes-per-point", cost.bytes_per_point, "bytes moved per point");

  CLI11_PARSE(app, argc, argv);
  try {
    if (search->parsed()) {
      chunk.buffer = Bytes(chunk_buffer);
      chunk.retry_cnt = static_cast<uint8_t>(retry);
      chunk.timeout = static_cast<uint8_t>(timeout);
      run_chunk_search(chunk, stdout);
    } else if (mice_cmd->parsed()) {
      mice.interval = Time::from_seconds(interval_ms / 1e3);
      run_mice(mice, stdout);
    } else {
      run_cost(cost, stdout);
    }
  } catch (const Error& e) {
    fmt::print(stderr, "bifrost-virtuoso-bench: {}\n", e.what());
    return 1;
  }
  return 0;
}
