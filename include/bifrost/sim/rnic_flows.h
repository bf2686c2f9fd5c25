#pragma once
// Carries a scenario's flows on soft RNICs: one rnic::Device per host, attached to the host's
// NIC port, and per flow one RC (or UC) QP pair made when the flow starts and destroyed when it
// is done. Over RC a flow is one RDMA WRITE_WITH_IMM (chunks of at most 1 GiB for longer flows,
// the last with immediate data); it completes when the receiver's completion for the last chunk
// is generated, that is when the last byte has been placed. Over UC ("UC RoCE": line rate, no
// recovery) a flow is a train of WRITE_WITH_IMM messages of `uc_message` bytes, each consuming
// one of the receives posted at the start and carrying its index as immediate data; a message
// cut by a lost packet is dropped whole by the responder, and the flow completes only if every
// message arrived. Memory regions carry no content, so million-packet flows cost no memory for
// payloads.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "bifrost/rnic/device.h"
#include "bifrost/sim/detail/host_device.h"
#include "bifrost/sim/event_kernel.h"
#include "bifrost/sim/metrics/fasr_pool_metrics.h"
#include "bifrost/sim/network.h"
#include "bifrost/sim/workload/flow.h"

namespace bifrost::sim {

struct RnicFlowsConfig {
  rnic::DeviceConfig device{};  // template for every host's NIC (name and GIDs are set here)
  detail::DeviceByHost device_by_host;  // hosts with a NIC of their own instead
  uint32_t mtu = 1024;
  uint8_t timeout = 14;  // RC QP timeout exponent: 4.096 us * 2^timeout (67 ms)
  uint8_t retry_cnt = 7;
  uint8_t rnr_retry = 7;
  rnic::QpType qp_type = rnic::QpType::rc;  // rc or uc
  // UC: the WRITE message size (the last message of a flow is the remainder). perftest's
  // default message size (ib_write_bw -s 65536); at most 2^31 bytes.
  uint64_t uc_message = uint64_t{64} << 10;
  // Each flow's sender QP paced at this rate by its NIC's limiter; nullopt: line rate.
  std::optional<Rate> qp_rate;
};

// A running flow's sender QP as DCQCN sees it (the flow_throughput.csv columns); both nullopt
// while no CNP has reached it (line rate).
struct QpRateSample {
  std::optional<Rate> rate;     // DCQCN's current rate
  std::optional<double> alpha;  // DCQCN's alpha: near 1 while CNPs keep coming
};

struct RnicFlowRecord {
  bool complete = false;
  bool failed = false;  // a QP error (retries exhausted) ended the flow
  Time finish = Time::max();
  uint64_t packets = 0;  // request packets of the flow's first transmission
  // The flow's WRITE messages (RC: 1 GiB chunks), and over UC those its receiver completed,
  // each at most once.
  uint64_t messages = 0;
  uint64_t messages_received = 0;
};

class RnicFlows {
 public:
  // Throws Error for a bad MTU or device template.
  RnicFlows(EventKernel& kernel, Network& network, const RnicFlowsConfig& config);
  ~RnicFlows();
  RnicFlows(const RnicFlows&) = delete;
  RnicFlows& operator=(const RnicFlows&) = delete;

  // Schedules `flow` (its id must be the next index: 0, 1, 2, ...).
  void add(const workload::Flow& flow);

  const std::vector<RnicFlowRecord>& records() const { return records_; }
  size_t completed() const { return completed_; }
  // Payload bytes of flow `id` that have arrived in order at its receiver: over RC whole MTU
  // packets up to the receiver's expected PSN, the flow's size once it completed (call at least
  // once per 2^24 packets of a flow, the PSN space, to count every wrap); over UC the bytes of
  // the messages received complete.
  uint64_t delivered_bytes(uint64_t id);
  // Flow `id`'s sender QP now; nullopt once the flow is done or before it started.
  std::optional<QpRateSample> sender_rate(uint64_t id) const;
  // Summed over every device.
  rnic::DataPathCounters counters() const;
  // Host `h`'s NIC.
  const rnic::Device& device(uint32_t host) const { return *nics_.at(host).device; }
  rnic::Device& device(uint32_t host) { return *nics_.at(host).device; }
  // Every NIC's FaSR pool until now, in host order; nullopt when the NICs run another engine.
  std::optional<metrics::FasrPoolMetrics> fasr_pools() const;

 private:
  struct Active {
    rnic::QueuePair* sender = nullptr;
    rnic::QueuePair* receiver = nullptr;
    uint32_t src = 0;
    uint32_t dst = 0;
    uint32_t last_psn = 0;       // the receiver's expected PSN when last asked
    uint64_t in_order = 0;       // packets arrived in order by then
    uint64_t next_message = 0;   // UC: above the highest message index received
    uint64_t message_bytes = 0;  // UC: bytes of the messages received complete
  };
  struct Nic {
    std::unique_ptr<rnic::Device> device;
    rnic::ProtectionDomain pd;
    rnic::CompletionQueue* cq = nullptr;
    uint32_t lkey = 0;
    uint32_t rkey = 0;
    bool poll_scheduled = false;
  };

  void start(uint32_t id);
  void connect(rnic::QueuePair& qp, const Nic& peer, uint32_t peer_qpn, uint16_t sport,
               uint8_t traffic_class);
  void poll(uint32_t host);
  void on_uc_message(uint32_t id, uint32_t index);
  uint64_t message_length(uint32_t id, uint64_t index) const;
  void finish(uint32_t id, bool failed);

  EventKernel& kernel_;
  Network& network_;
  RnicFlowsConfig config_;
  std::vector<Nic> nics_;
  std::vector<workload::Flow> flows_;
  std::vector<RnicFlowRecord> records_;
  std::vector<Active> active_;
  size_t completed_ = 0;
};

}  // namespace bifrost::sim
