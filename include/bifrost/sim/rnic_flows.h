#pragma once
// Carries a scenario's flows on soft RNICs: one rnic::Device per host, attached to the host's
// NIC port, and per flow one RC QP pair made when the flow starts and destroyed when it is
// done. A flow is one RDMA WRITE_WITH_IMM (chunks of at most 1 GiB for longer flows, the last
// with immediate data); it completes when the receiver's completion for the last chunk is
// generated, that is when the last byte has been placed. Memory regions carry no content, so
// million-packet flows cost no memory for payloads.
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
  // Payload bytes of flow `id` that have arrived in order at its receiver: whole MTU packets
  // up to the receiver's expected PSN, the flow's size once it completed. Call at least once
  // per 2^24 packets of a flow (the PSN space) to count every wrap.
  uint64_t delivered_bytes(uint64_t id);
  // Flow `id`'s sender QP now; nullopt once the flow is done or before it started.
  std::optional<QpRateSample> sender_rate(uint64_t id) const;
  // Summed over every device.
  rnic::DataPathCounters counters() const;
  // Host `h`'s NIC.
  const rnic::Device& device(uint32_t host) const { return *nics_.at(host).device; }
  // Every NIC's FaSR pool until now, in host order; nullopt when the NICs run another engine.
  std::optional<metrics::FasrPoolMetrics> fasr_pools() const;

 private:
  struct Active {
    rnic::QueuePair* sender = nullptr;
    rnic::QueuePair* receiver = nullptr;
    uint32_t src = 0;
    uint32_t dst = 0;
    uint32_t last_psn = 0;  // the receiver's expected PSN when last asked
    uint64_t in_order = 0;  // packets arrived in order by then
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
