#pragma once
// Carries a scenario's flows over the Bifröst transport: one rnic::Device per host, attached to
// the host's NIC port as RnicFlows attaches it, one transport::Endpoint per host and priority
// class in use (the endpoint fixes its data traffic class), and one Bifröst Connection per
// pair of hosts, lane and priority, created and connected at both ends the first time a flow
// needs it and kept for the rest of the run. A connection carries messages both ways, as the
// paper's do: flows A -> B and B -> A share it (and its data QPs), each direction with its own
// window and RTT. Lane 0 carries the scenario's ordinary flows; a closed loop gives each of its
// threads a lane of its own, so each thread has its own connection, window and RTT, as a
// thread of the paper's clients does.
//
// A flow is one message, or several of at most max_message_size() when it is larger. It
// completes when the SendCompletion of the last of its messages arrives: the transport reports
// a message complete once the receiver has acknowledged all of it, so a flow is complete when
// the sender knows every byte arrived (an RPC's client sees its request done), one ACK later
// than RnicFlows' "last byte placed". A message that fails (no QP left) fails its flow.
//
// Messages carry no payload bytes: each endpoint has one application region of token memory;
// a message is read from a slot of it whose first 8 bytes hold its flow's id, so every
// delivery names its flow and deliveries() counts them: exactly once means deliveries(id) ==
// messages(id) for every flow. (Messages under 8 bytes carry the id's low bytes only.)
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "bifrost/core/percentiles.h"
#include "bifrost/rnic/device.h"
#include "bifrost/rnic/host_memory.h"
#include "bifrost/sim/detail/host_device.h"
#include "bifrost/sim/event_kernel.h"
#include "bifrost/sim/metrics/run_metrics.h"
#include "bifrost/sim/network.h"
#include "bifrost/sim/rnic_flows.h"
#include "bifrost/sim/workload/flow.h"
#include "bifrost/transport/endpoint.h"
#include "bifrost/transport/rogue/rogue_connection.h"
#include "bifrost/transport/virtuoso/mp_connection.h"

namespace bifrost::sim {

struct TransportFlowsConfig {
  rnic::DeviceConfig device{};  // template for every host's NIC (name and GIDs are set here)
  detail::DeviceByHost device_by_host;  // hosts with a NIC of their own instead
  transport::TransportConfig transport{};
  transport::EndpointConfig endpoint{};  // seed and data class are set per endpoint
  // Software ACKs (on the UD QP) in the data's traffic class instead of the endpoint's higher
  // ACK class: they queue behind data in NICs and switches (Fig. 4(b)'s comparison).
  bool acks_in_data_class = false;
  // A non-stop upgrade's starting point: lanes with TransportFlows::kPlainRcLane set carry
  // their flows on connections of this configuration instead (plain RC: the NIC's go-back-N
  // and congestion control, no software CC); unset, those lanes use `transport` too.
  std::optional<transport::TransportConfig> plain_rc;
  // Set: the channels are RoGUE connections of this configuration instead of Bifröst's. A
  // message is then one application verb (at most max_verb_bytes) into the peer's inbox: a
  // WRITE by the flow's source, or for FlowOp::read flows a READ of the source's slot by the
  // destination; complete at its completion (RC: acknowledged; UC: sent, RoGUE's UC promises
  // no more).
  std::optional<transport::rogue::RogueConfig> rogue;
  // RoGUE: record every RTT sample and rate change (TransportFlows::cc_trace).
  bool cc_trace = false;
  // RoGUE: the application verbs flows are cut into (0: one verb per flow, up to
  // RogueConfig::max_verb_bytes). At most 65,536 may be outstanding per host and class.
  uint64_t rogue_verb_bytes = 0;
  // Set: the channels are Virtuoso connections of this configuration (one RC QP per path, the
  // hosts need its aliases). A message is one MP WRITE (at most 4 GiB) into the peer's inbox,
  // or an MP READ by the destination (FlowOp::read), complete at its MP completion. Path
  // estimates are shared by every channel, so only the first connection of a host pair probes.
  std::optional<transport::virtuoso::VirtuosoConfig> virtuoso;
};

// Summed over every connection's two halves. For RoGUE: chunks are segments, retransmitted WQEs
// the segments a shadow QP sent again, losses the UC echoes that never came, timeouts the UC
// sample timeouts, tail probes the UC probes after them, failovers the shadow takeovers, and
// duplicates the receives a whole-verb resend delivered twice. For Virtuoso: chunks are the
// constituent WRs, retransmitted WQEs the WRs posted again after a QP recovery, failovers the
// recoveries, duplicates the SENDs dropped as repeats.
struct TransportTotals {
  uint64_t connections = 0;  // each carries both directions between its two hosts
  uint64_t messages = 0;     // delivered (as the senders saw it)
  uint64_t chunks = 0;
  uint64_t retransmitted_wqes = 0;
  uint64_t losses_detected = 0;
  uint64_t timeouts = 0;
  uint64_t tail_probes = 0;
  uint64_t failovers = 0;
  uint64_t duplicates = 0;  // suppressed at the receivers
  // Bifröst's verdicts proved wrong by a late ACK (SenderStats): timeouts, failovers.
  uint64_t spurious_timeouts = 0;
  uint64_t failovers_refuted = 0;
  // The endpoints' receive completions and their wait before being handled (EndpointStats;
  // nonzero only with a modelled completion cost).
  uint64_t receive_completions = 0;
  Time receive_wait_total;
  Time receive_wait_max;
};

class TransportFlows {
 public:
  using FlowDone = std::function<void(uint64_t flow_id)>;
  // The lane bit that selects TransportFlowsConfig::plain_rc (lanes are below 2^20).
  static constexpr uint32_t kPlainRcLane = 1u << 19;

  // Throws Error for a bad MTU, device template or transport configuration.
  TransportFlows(EventKernel& kernel, Network& network, const TransportFlowsConfig& config);
  ~TransportFlows();
  TransportFlows(const TransportFlows&) = delete;
  TransportFlows& operator=(const TransportFlows&) = delete;

  // Schedules `flow` at flow.start on the connection of its hosts, `lane` and priority; `done`
  // runs when it completes (or fails). Ids must come in order: 0, 1, 2, ...
  void add(const workload::Flow& flow, uint32_t lane = 0, FlowDone done = {});

  const std::vector<RnicFlowRecord>& records() const { return records_; }
  size_t completed() const { return completed_; }
  uint32_t messages(uint64_t id) const { return flows_[id].messages; }
  uint32_t deliveries(uint64_t id) const { return flows_[id].deliveries; }
  // Bytes of flow `id` in messages its sender saw complete: a full message's bytes each (the
  // flow's shorter last one too, up to the flow's size) until the flow completes, so within one
  // message of the truth.
  uint64_t delivered_bytes(uint64_t id) const;
  // Deliveries whose id names no flow of the connection they arrived on.
  uint64_t unidentified_deliveries() const { return unidentified_; }
  rnic::DataPathCounters counters() const;
  TransportTotals totals() const;
  // The RTT samples each direction's sender took, by direction (source host order).
  std::vector<metrics::TransportRttDirection> rtt_by_direction() const;
  const transport::TransportConfig& transport_config() const { return config_.transport; }
  // RoGUE: `host`'s connection to `peer` on `lane` and `priority`, once a flow opened it
  // (nullptr before, or without RoGUE), for tests and traces that follow its windows.
  const transport::rogue::RogueConnection* rogue_connection(uint32_t host, uint32_t peer,
                                                            uint32_t lane = 0,
                                                            uint8_t priority = 0) const;
  // RoGUE with TransportFlowsConfig::cc_trace: every connection's samples and rate changes.
  const std::vector<metrics::CcTraceRow>& cc_trace() const { return cc_trace_; }
  // Host `h`'s NIC (a probe workload adds a QP pair of its own to it).
  rnic::Device& device(uint32_t host) { return *hosts_.at(host).device; }
  // Turns every NIC's DCQCN off while running (rnic::Device::disable_dcqcn).
  void disable_nic_dcqcn();

 private:
  // One endpoint and its application region on a host.
  struct Party {
    std::unique_ptr<transport::Endpoint> endpoint;
    std::unique_ptr<rnic::TokenMemory> app;
    const rnic::MemoryRegion* region = nullptr;
    std::vector<uint32_t> free_slots;  // message slots of the region, last freed first
    uint32_t next_slot = 0;
  };
  struct Host {
    std::string name;
    std::unique_ptr<rnic::Device> device;
    std::array<std::unique_ptr<Party>, workload::kPriorityClasses> parties;
  };
  // One connection between two hosts (a lane, a priority): its half at each host.
  struct Channel {
    std::array<uint32_t, 2> host{};  // the lower host first
    std::array<transport::Connection*, 2> half{};
    std::array<std::unique_ptr<transport::rogue::RogueConnection>, 2> rogue{};
    std::array<std::unique_ptr<transport::virtuoso::MpConnection>, 2> virtuoso{};
    std::array<Party*, 2> party{};
    std::array<ApproxPercentiles, 2> rtt;  // the samples half[i]'s sender took
    std::array<double, 2> rtt_sum_us{};
    uint32_t lane = 0;
    uint8_t priority = 0;
    int side_of(uint32_t h) const { return h == host[0] ? 0 : 1; }
  };
  struct FlowState {
    workload::Flow flow;
    uint32_t lane = 0;
    uint32_t messages = 0;
    uint32_t left = 0;  // messages not completed yet
    uint32_t deliveries = 0;
    FlowDone done;
  };

  void start(uint64_t id);
  Party& party(uint32_t host, uint8_t priority);
  Channel& channel(uint32_t src, uint32_t dst, uint32_t lane, uint8_t priority);
  void send_message(Channel& c, int side, uint64_t id, uint64_t length);
  // RoGUE: the connection pair of a new channel, and one message as a verb: a WRITE from the
  // flow's source, or (FlowOp::read) a READ by its destination.
  void connect_rogue(Channel& c);
  // Records `side`'s congestion-control events into cc_trace_.
  void trace_rogue(Channel& c, int side);
  void post_rogue(Channel& c, int side, uint64_t id, uint32_t slot, uint64_t length);
  // Virtuoso: the same, as MP WRs.
  void connect_virtuoso(Channel& c);
  void post_virtuoso(Channel& c, int side, uint64_t id, uint32_t slot, uint64_t length);
  // A one-sided message's two ends: `side`'s slot holds the data, the peer's inbox of the same
  // slot receives it.
  struct OneSided {
    transport::MessageBuffer source;
    transport::MessageBuffer inbox;
  };
  OneSided one_sided(const Channel& c, int side, uint32_t slot, uint64_t length) const;
  // The slot a completion's wr_id names goes back to the data holder; the flow's message is done.
  void on_one_sided_done(Channel& c, int side, uint64_t wr_id, bool read, bool failed);
  // A delivery to half[side]: a message from the other host.
  void on_delivery(const Channel& c, int side, const transport::Delivery& d);
  void on_message_done(uint64_t id, bool failed);

  EventKernel& kernel_;
  TransportFlowsConfig config_;
  uint64_t slot_bytes_ = 0;
  uint32_t slot_count_ = 0;
  std::vector<Host> hosts_;
  transport::virtuoso::PathEstimateCache path_estimates_;
  transport::virtuoso::PathOracle path_oracle_;  // Virtuoso under ECMP (ecmp_path_oracle.h)
  std::unordered_map<uint64_t, std::unique_ptr<Channel>> channels_;
  std::vector<FlowState> flows_;
  std::vector<RnicFlowRecord> records_;
  size_t completed_ = 0;
  uint64_t unidentified_ = 0;
  std::vector<metrics::CcTraceRow> cc_trace_;
};

}  // namespace bifrost::sim
