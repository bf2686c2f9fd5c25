#pragma once
// Runs a scenario: builds the network, generates the flows, drives them until they finish (or
// the stop rule says so), samples the metrics and writes the output folder. The scenario's
// [transport] kind and [nic] model pick what carries the flows: the Bifröst transport over soft
// RNICs (TransportFlows, which closed-loop workloads need), soft RNICs with one plain RC QP pair
// per flow (loss recovery, optional DCQCN), or net::LineRateFlows, a deliberately minimal
// source without congestion control or recovery (a lost packet leaves its flow unfinished,
// which the results report).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bifrost/net/line_rate_flows.h"
#include "bifrost/sim/closed_loop.h"
#include "bifrost/sim/metrics/run_metrics.h"
#include "bifrost/sim/network.h"
#include "bifrost/sim/rnic_flows.h"
#include "bifrost/sim/scenario/scenario.h"
#include "bifrost/sim/transport_flows.h"
#include "bifrost/sim/workload/flow.h"

namespace bifrost::sim {

struct RunOptions {
  std::filesystem::path out_dir;        // empty: write nothing
  std::FILE* progress = stderr;         // nullptr: silent
  double progress_every_seconds = 2.0;  // wall time between progress lines
};

struct ClosedLoopSummary {
  std::string name;  // the workload's
  ClosedLoopSpec spec;
  ClosedLoopResult result;
  uint64_t window_drops = 0;  // packets dropped anywhere during its goodput window
};

struct RunSummary {
  uint64_t flows = 0;
  uint64_t finished = 0;
  Time simulated;
  double wall_seconds = 0;
  uint64_t events = 0;
  uint64_t packets = 0;       // data packets the sources sent
  uint64_t data_packets = 0;  // data frames put on any link (every hop counts)
  uint64_t drops = 0;
  uint64_t pauses = 0;
  uint64_t retransmitted = 0;           // RNIC model: packets the NICs sent again
  uint64_t timeouts = 0;                // RNIC model: retransmission timeouts
  TransportTotals transport;            // Bifröst transport only
  uint64_t transport_unidentified = 0;  // deliveries naming no flow (should stay 0)
  std::vector<ClosedLoopSummary> closed_loops;
  metrics::RunMetrics metrics;
};

// The completion time of `flow` alone on an empty network along `path`: every frame is
// stored and forwarded, so frame k leaves link i at
//   max(leaves link i-1 + propagation + switch latency, frame k-1 leaves link i) + wire time,
// and the flow completes when the last frame has crossed the last link. `immediate_last`:
// the flow is a WRITE_WITH_IMM (RNIC model), whose last frame is 4 bytes longer.
Time ideal_fct(Bytes size, uint32_t mtu, const std::vector<const Network::LinkInfo*>& path,
               Time switch_latency, bool immediate_last = false);
// The same for a flow that may use several paths at once (Virtuoso's K paths): each frame, in
// order, goes along the path where it arrives first, and links the paths share (the hosts')
// carry one frame at a time, so the result is about size / min(host rate, sum of the paths'
// bottleneck rates) plus one path's latency. One path gives exactly the function above.
// Throws Error for no path.
Time ideal_fct(Bytes size, uint32_t mtu,
               const std::vector<std::vector<const Network::LinkInfo*>>& paths, Time switch_latency,
               bool immediate_last = false);

RunSummary run_scenario(const scenario::Scenario& scenario, const RunOptions& options);

}  // namespace bifrost::sim
