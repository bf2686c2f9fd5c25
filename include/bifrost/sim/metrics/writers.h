#pragma once
// Result files of a run: CSV tables and a JSON summary in one output folder. Times are integer
// picoseconds (columns ending in _ps), sizes bytes, rates Gb/s; names that hold a comma or a
// quote are quoted as CSV requires. docs/scenarios.md lists every column.
//
//   flows.csv        id,src,dst,size_bytes,start_ps,finish_ps,fct_ps,ideal_fct_ps,slowdown,tag
//                    (finish_ps, fct_ps and slowdown empty for flows that did not finish)
//   fct_by_size.csv  bucket,min_bytes,max_bytes,flows,mean_slowdown,p<P>... (one column per
//                    percentile, e.g. p50,p99.9; max_bytes empty for the open last bucket; the
//                    last row, "all", covers every size; statistics empty for empty buckets)
//   throughput.csv   start_ps,end_ps,link,bytes,gbps
//   queues.csv       time_ps,queue,bytes
//   pauses.csv       port,pauses,paused_ps,longest_ps
//   drops.csv        reason,packets
//   summary.json     run information and the totals of all of the above
//   fasr_pool.csv    nic,peak_units,peak_blocks,peak_bytes,mean_units,mean_blocks,mean_bytes,
//                    observed_ps,units_exhausted_ps,unit_allocations,block_allocations,
//                    fallbacks,unit_fallbacks,fast_recoveries,slow_recoveries
//                    (only when the run has FaSR pools: RunMetrics::fasr_pool)
//   transport_rtt.csv src,dst,lane,priority,samples,min_us,mean_us,p50_us,p99_us,p999_us,max_us
//                    (only over the Bifröst transport: RunMetrics::transport_rtt)
//   flow_throughput.csv start_ps,end_ps,flow,bytes,gbps,whole
//   flow_fairness.csv   start_ps,end_ps,flows,jain
//                    (only with per-flow sampling: RunMetrics::flow_throughput)
//   probe_rtt.csv    workload,src,dst,seq,posted_ps,rtt_ps (only with probe workloads)
#include <array>
#include <filesystem>
#include <string>
#include <string_view>

#include "bifrost/sim/metrics/run_metrics.h"

namespace bifrost::sim::metrics {

inline constexpr std::array<std::string_view, 7> kOutputFiles = {
    "flows.csv",  "fct_by_size.csv", "throughput.csv", "queues.csv",
    "pauses.csv", "drops.csv",       "summary.json"};

std::string flows_csv(const FlowMetrics& flows);
std::string fct_by_size_csv(const FlowMetrics& flows);
std::string throughput_csv(const ThroughputSeries& throughput);
std::string queues_csv(const QueueSeries& queues);
std::string pauses_csv(const PauseCounters& pauses);
std::string drops_csv(const DropCounters& drops);
std::string summary_json(const RunMetrics& metrics, const RunInfo& info);
std::string fasr_pool_csv(const FasrPoolMetrics& pool);
std::string transport_rtt_csv(const std::vector<TransportRttDirection>& directions);
std::string flow_throughput_csv(const FlowThroughputSeries& series);
std::string flow_fairness_csv(const FlowThroughputSeries& series);

// Writes every file of kOutputFiles into `dir` (and fasr_pool.csv when the metrics have FaSR
// pools), creating it if needed; with `flow_records`
// false, flows.csv holds only its header (one row per flow can be large). Throws Error naming
// the file that cannot be written.
void write_outputs(const RunMetrics& metrics, const RunInfo& info, const std::filesystem::path& dir,
                   bool flow_records = true);

}  // namespace bifrost::sim::metrics
