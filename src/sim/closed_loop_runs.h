#pragma once
// The scenario runner's side of closed-loop workloads: starting one ClosedLoop per
// `closed_loop` workload on the run's transport, and the closed_loop.csv result file.
#include <memory>
#include <string>
#include <vector>

#include "bifrost/sim/closed_loop.h"
#include "bifrost/sim/event_kernel.h"
#include "bifrost/sim/scenario/scenario.h"
#include "bifrost/sim/simulation.h"
#include "bifrost/sim/workload/flow.h"
#include "flow_carriers.h"

namespace bifrost::sim::detail {

// One ClosedLoop per closed_loop workload, in file order, each on lanes of its own (the first
// from lane 1; lane 0 carries the other workloads' flows). Throws Error if there is one and
// the carrier is not the Bifröst transport.
std::vector<std::unique_ptr<ClosedLoop>> start_closed_loops(const scenario::Scenario& scenario,
                                                            EventKernel& kernel,
                                                            FlowCarrier& carrier,
                                                            std::vector<workload::Flow>& flows);

// The text of closed_loop.csv: one row per closed loop (docs/scenarios.md).
std::string closed_loops_csv(const std::vector<ClosedLoopSummary>& loops);

}  // namespace bifrost::sim::detail
