#pragma once
// From a parsed scenario to the list of flows to simulate.
#include <cstdint>
#include <vector>

#include "bifrost/sim/scenario/scenario.h"
#include "bifrost/sim/workload/flow.h"

namespace bifrost::sim::scenario {

// The flows of one workload, tagged with its name, drawn from the random stream
// RandomStream(seed, "workload/<name>"). A load with reference "host" is relative to each
// source's host link (LoadReference::per_source); any other reference names a link class whose
// single-link rate all sources share (LoadReference::aggregate). A closed_loop workload yields
// no flows here: its requests are made while the run goes (sim::ClosedLoop).
std::vector<workload::Flow> workload_flows(const WorkloadConfig& config, const Topology& topology,
                                           uint64_t seed);

// The flows of every workload, merged in order of start time (ties in workload order) and
// numbered 0, 1, ...
std::vector<workload::Flow> build_flows(const Scenario& scenario);

// The priority classes the run's traffic uses, bit p for priority p: the priority of every flow
// in `flows` (a file workload's rows carry their own) and every closed loop's (its requests are
// made while the run goes). Flow control protects exactly these.
uint8_t used_priorities(const Scenario& scenario, const std::vector<workload::Flow>& flows);

}  // namespace bifrost::sim::scenario
