#include "bifrost/sim/scenario/flows.h"

#include <fmt/format.h>

#include <variant>

#include "bifrost/core/overloaded.h"
#include "bifrost/sim/workload/patterns.h"
#include "bifrost/sim/workload/poisson.h"

namespace bifrost::sim::scenario {

namespace {

using workload::Flow;

// The flows a workload's pattern makes, before the workload's own settings are applied.
std::vector<Flow> pattern_flows(const WorkloadConfig& config, const Topology& topology,
                                uint64_t seed) {
  const RandomStream rng(seed, fmt::format("workload/{}", config.name));
  const std::string& tag = config.name;
  const uint8_t priority = config.priority;
  return std::visit(
      Overloaded{
          [&](const PoissonWorkload& w) {
            workload::PoissonSpec spec;
            spec.sources = w.sources;
            spec.destinations = w.destinations;
            spec.load = w.load;
            const bool per_host = w.reference == "host";
            spec.reference =
                per_host ? workload::LoadReference::per_source : workload::LoadReference::aggregate;
            spec.reference_rate = link_class_rate(topology, w.reference);
            spec.start = w.start;
            spec.stop = {w.duration, w.max_flows};
            spec.priority = priority;
            spec.tag = tag;
            return workload::generate_poisson(spec, *w.sizes, rng);
          },
          [&](const IncastWorkload& w) {
            return workload::generate_incast({w.senders, w.receiver, w.size, w.start, w.jitter,
                                              w.rounds, w.period, priority, tag},
                                             rng);
          },
          [&](const AllToAllWorkload& w) {
            return workload::generate_all_to_all(
                {w.hosts, w.size, w.start, w.jitter, priority, tag}, rng);
          },
          [&](const PermutationWorkload& w) {
            return workload::generate_permutation(
                {w.hosts, w.size, w.start, w.jitter, priority, tag}, rng);
          },
          [&](const FileWorkload& w) {
            std::vector<Flow> flows = w.flows;
            for (Flow& f : flows) f.tag = tag;
            return flows;
          },
          // Its requests are made while the run goes (sim::ClosedLoop), none up front.
          [&](const ClosedLoopWorkload&) { return std::vector<Flow>{}; },
          // Its zero-byte WRITEs are posted while the run goes (sim::Probe), never flows.
          [&](const ProbeWorkload&) { return std::vector<Flow>{}; },
      },
      config.spec);
}

}  // namespace

std::vector<Flow> workload_flows(const WorkloadConfig& config, const Topology& topology,
                                 uint64_t seed) {
  std::vector<Flow> flows = pattern_flows(config, topology, seed);
  for (Flow& f : flows) f.op = config.op;
  return flows;
}

std::vector<Flow> build_flows(const Scenario& scenario) {
  std::vector<std::vector<Flow>> lists;
  lists.reserve(scenario.workloads.size());
  for (const WorkloadConfig& w : scenario.workloads) {
    lists.push_back(workload_flows(w, scenario.topology, scenario.simulation.seed));
  }
  return workload::merge_flows(std::move(lists));
}

uint8_t used_priorities(const Scenario& scenario, const std::vector<Flow>& flows) {
  uint8_t used = 0;
  for (const Flow& f : flows) used |= static_cast<uint8_t>(1u << f.priority);
  for (const WorkloadConfig& w : scenario.workloads) {
    if (std::holds_alternative<ClosedLoopWorkload>(w.spec) ||
        std::holds_alternative<ProbeWorkload>(w.spec)) {
      used |= static_cast<uint8_t>(1u << w.priority);
    }
  }
  return used;
}

}  // namespace bifrost::sim::scenario
