#pragma once
// What carries a run's flows at the hosts, behind one interface so the scenario runner does not
// care: line-rate sources, soft RNICs with one RC QP pair per flow ([nic] model) or one UC QP
// pair ([transport] kind = "uc"), or the Bifröst transport ([transport] kind).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "bifrost/sim/event_kernel.h"
#include "bifrost/sim/network.h"
#include "bifrost/sim/rnic_flows.h"
#include "bifrost/sim/scenario/scenario.h"
#include "bifrost/sim/simulation.h"
#include "bifrost/sim/transport_flows.h"
#include "bifrost/sim/workload/flow.h"

namespace bifrost::sim::detail {

class FlowCarrier {
 public:
  virtual ~FlowCarrier() = default;
  // Flows come in id order; they start at their start time.
  virtual void add(const workload::Flow& flow) = 0;
  virtual size_t completed() const = 0;
  virtual std::optional<Time> finish(uint64_t id) const = 0;  // nullopt: unfinished
  virtual uint64_t packets(uint64_t id) const = 0;  // data packets of the first transmission
  // Bytes of flow `id` its receiver holds so far, for per-flow throughput: RC QP flows count
  // what arrived in order, UC QP flows their messages received complete, transports the
  // messages completed (see each carrier).
  virtual uint64_t delivered_bytes(uint64_t id) = 0;
  // For the ideal FCT: the last packet carries 4 bytes of immediate data (RDMA carriers).
  virtual bool immediate_last() const = 0;
  // Flow `id`'s sender QP under DCQCN now; nullopt when the flow is not running or the
  // carrier has no such QP.
  virtual std::optional<QpRateSample> sender_rate(uint64_t /*id*/) const { return std::nullopt; }
  virtual std::string description() const = 0;  // for the progress header
  // The carrier's own counters: NIC retransmissions and timeouts, transport totals.
  virtual void add_counters(RunSummary& summary) const = 0;
  // The Bifröst transport, which closed loops run over; nullptr for the other carriers.
  virtual TransportFlows* transport() { return nullptr; }
  // Host `h`'s soft RNIC, which probes post on; nullptr for line-rate sources.
  virtual rnic::Device* device(uint32_t /*host*/) { return nullptr; }
};

std::unique_ptr<FlowCarrier> make_flow_carrier(const scenario::Scenario& scenario,
                                               EventKernel& kernel, Network& network);

// The transport configuration a scenario's [transport] table and topology give.
TransportFlowsConfig transport_flows_config(const scenario::Scenario& scenario);

}  // namespace bifrost::sim::detail
