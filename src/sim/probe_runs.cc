#include "probe_runs.h"

#include <variant>

#include "bifrost/core/error.h"

namespace bifrost::sim::detail {

std::vector<std::unique_ptr<Probe>> start_probes(const scenario::Scenario& sc, EventKernel& kernel,
                                                 FlowCarrier& carrier) {
  std::vector<std::unique_ptr<Probe>> probes;
  for (const scenario::WorkloadConfig& w : sc.workloads) {
    const auto* probe = std::get_if<scenario::ProbeWorkload>(&w.spec);
    if (probe == nullptr) continue;
    rnic::Device* src = carrier.device(probe->src);
    rnic::Device* dst = carrier.device(probe->dst);
    if (src == nullptr || dst == nullptr) {
      throw Error("workload {}: a probe posts on soft RNICs; set [nic] model = \"rnic\"", w.name);
    }
    ProbeSpec spec;
    spec.probe = *probe;
    spec.name = w.name;
    spec.priority = w.priority;
    spec.mtu = static_cast<uint32_t>(sc.simulation.mtu.count());
    probes.push_back(std::make_unique<Probe>(kernel, *src, *dst, spec));
  }
  return probes;
}

}  // namespace bifrost::sim::detail
