#pragma once
// The scenario runner's side of probe workloads: one sim::Probe per `probe` workload on the
// run's soft RNICs.
#include <memory>
#include <vector>

#include "bifrost/sim/event_kernel.h"
#include "bifrost/sim/probe.h"
#include "bifrost/sim/scenario/scenario.h"
#include "flow_carriers.h"

namespace bifrost::sim::detail {

// In file order. Throws Error if there is one and the carrier has no soft RNICs.
std::vector<std::unique_ptr<Probe>> start_probes(const scenario::Scenario& scenario,
                                                 EventKernel& kernel, FlowCarrier& carrier);

}  // namespace bifrost::sim::detail
