#pragma once
// Everything one run measures, gathered for the writers.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bifrost/core/time.h"
#include "bifrost/sim/metrics/cc_trace.h"
#include "bifrost/sim/metrics/counters.h"
#include "bifrost/sim/metrics/fasr_pool_metrics.h"
#include "bifrost/sim/metrics/flow_metrics.h"
#include "bifrost/sim/metrics/flow_throughput.h"
#include "bifrost/sim/metrics/probe_rtt.h"
#include "bifrost/sim/metrics/time_series.h"
#include "bifrost/sim/metrics/transport_rtt_metrics.h"

namespace bifrost::sim::metrics {

// The soft RNICs' recovery counters, summed over every NIC: retransmission without loss shows
// here (docs/rnic.md, "ACK timing").
struct NicTotals {
  uint64_t retransmitted = 0;  // packets sent again
  uint64_t timeouts = 0;       // retransmission timer expiries
  uint64_t naks_sent = 0;
  uint64_t sacks_sent = 0;
  uint64_t delayed_acks = 0;  // ACKs sent because the responder's ACK delay bound ran out
  uint64_t cnps_sent = 0;
  uint64_t uc_out_of_sequence = 0;  // UC packets off the expected PSN (ConnectX's OOS counter)
};

struct RunMetrics {
  FlowMetrics flows;
  ThroughputSeries throughput;
  QueueSeries queues;
  PauseCounters pauses;
  DropCounters drops;
  std::optional<FasrPoolMetrics> fasr_pool;             // soft RNICs with the FaSR engine only
  std::vector<TransportRttDirection> transport_rtt;     // the Bifröst transport only
  std::optional<NicTotals> nic;                         // soft RNICs only
  std::vector<CcTraceRow> cc_trace;                     // RoGUE with [metrics] cc_trace
  std::optional<FlowThroughputSeries> flow_throughput;  // [metrics] flow_throughput_interval
  std::vector<ProbeRttSeries> probes;                   // one per probe workload
};

// What the summary says about the run itself.
struct RunInfo {
  std::string scenario;  // the scenario file
  uint64_t seed = 0;
  Time simulated;                      // simulated time at the end of the run
  std::optional<double> wall_seconds;  // real time taken, when measured
};

}  // namespace bifrost::sim::metrics
