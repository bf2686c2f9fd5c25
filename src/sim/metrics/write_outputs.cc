#include <system_error>

#include "bifrost/core/error.h"
#include "bifrost/sim/metrics/cc_trace.h"
#include "bifrost/sim/metrics/writers.h"
#include "bifrost/sim/workload/text_file.h"

namespace bifrost::sim::metrics {

void write_outputs(const RunMetrics& metrics, const RunInfo& info, const std::filesystem::path& dir,
                   bool flow_records) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error("cannot create output folder {}: {}", dir.string(), ec.message());
  const FlowMetrics no_records(metrics.flows.buckets(), metrics.flows.percentiles());
  using workload::write_text_file;
  write_text_file(dir / "flows.csv", flows_csv(flow_records ? metrics.flows : no_records));
  write_text_file(dir / "fct_by_size.csv", fct_by_size_csv(metrics.flows));
  write_text_file(dir / "throughput.csv", throughput_csv(metrics.throughput));
  write_text_file(dir / "queues.csv", queues_csv(metrics.queues));
  write_text_file(dir / "pauses.csv", pauses_csv(metrics.pauses));
  write_text_file(dir / "drops.csv", drops_csv(metrics.drops));
  write_text_file(dir / "summary.json", summary_json(metrics, info));
  if (metrics.fasr_pool) write_text_file(dir / "fasr_pool.csv", fasr_pool_csv(*metrics.fasr_pool));
  if (!metrics.cc_trace.empty()) {
    write_text_file(dir / "cc_trace.csv", cc_trace_csv(metrics.cc_trace));
  }
  if (metrics.flow_throughput) {
    write_text_file(dir / "flow_throughput.csv", flow_throughput_csv(*metrics.flow_throughput));
    write_text_file(dir / "flow_fairness.csv", flow_fairness_csv(*metrics.flow_throughput));
  }
  if (!metrics.probes.empty())
    write_text_file(dir / "probe_rtt.csv", probe_rtt_csv(metrics.probes));
  if (!metrics.transport_rtt.empty()) {
    write_text_file(dir / "transport_rtt.csv", transport_rtt_csv(metrics.transport_rtt));
  }
}

}  // namespace bifrost::sim::metrics
