#include "closed_loop_runs.h"

#include <fmt/format.h>

#include <iterator>
#include <variant>

#include "bifrost/core/error.h"

namespace bifrost::sim::detail {

std::vector<std::unique_ptr<ClosedLoop>> start_closed_loops(const scenario::Scenario& sc,
                                                            EventKernel& kernel,
                                                            FlowCarrier& carrier,
                                                            std::vector<workload::Flow>& flows) {
  std::vector<std::unique_ptr<ClosedLoop>> loops;
  uint32_t lane = 1;
  for (const scenario::WorkloadConfig& w : sc.workloads) {
    const auto* loop = std::get_if<scenario::ClosedLoopWorkload>(&w.spec);
    if (loop == nullptr) continue;
    TransportFlows* transport = carrier.transport();
    if (transport == nullptr) {
      throw Error("workload {}: a closed loop runs over the Bifröst transport only", w.name);
    }
    ClosedLoopSpec spec;
    spec.loop = *loop;
    spec.priority = w.priority;
    spec.tag = w.name;
    spec.first_lane = lane;
    if (sc.upgrade) spec.bifrost_from = sc.upgrade->to_bifrost;
    lane += loop->threads;
    loops.push_back(std::make_unique<ClosedLoop>(kernel, *transport, spec, flows));
  }
  return loops;
}

std::string closed_loops_csv(const std::vector<ClosedLoopSummary>& loops) {
  std::string out =
      "workload,clients,threads,depth,outstanding,size_bytes,window_start_ps,window_end_ps,"
      "issued,completed,failed,window_requests,goodput_gbps,max_outstanding_per_thread,"
      "window_drops\n";
  auto it = std::back_inserter(out);
  for (const ClosedLoopSummary& l : loops) {
    const scenario::ClosedLoopWorkload& s = l.spec.loop;
    const ClosedLoopResult& r = l.result;
    fmt::format_to(it, "{},{},{},{},{},{},{},{},{},{},{},{},{:.4f},{},{}\n", l.name,
                   s.clients.size(), s.threads, s.depth, s.clients.size() * s.threads * s.depth,
                   s.size.count(), r.window_start.picoseconds(), r.window_end.picoseconds(),
                   r.issued, r.completed, r.failed, r.window_requests, r.goodput_gbps,
                   r.max_outstanding, l.window_drops);
  }
  return out;
}

}  // namespace bifrost::sim::detail
