#pragma once
// A deliberately minimal traffic source and sink for tests and workloads until the RNIC
// exists. NOT a transport: no ACKs, no retransmission, no congestion control. A flow is cut
// into MTU-sized RC RDMA WRITE packets (first / middle / last, or only), PSNs from 0, the flow
// id as destination QP, and fed to the source host's NIC one packet at a time, so it leaves at
// line rate whenever the NIC may send. The sink counts bytes per flow and reports completion
// (first byte on the wire .. last byte received) through a callback. Lost bytes are never
// resent: such a flow never completes.
#include <cstdint>
#include <vector>

#include "bifrost/core/inplace_function.h"
#include "bifrost/core/time.h"
#include "bifrost/net/host.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::net {

struct LineRateFlowSpec {
  Host* src = nullptr;
  Host* dst = nullptr;
  uint64_t bytes = 0;  // payload bytes, >= 1
  Time start = Time::zero();
  int priority = 0;  // sent with DSCP priority << 3 (the default DscpMap inverts it)
  uint16_t src_port = 49152;
  bool ecn_capable = false;  // ECT(0) if set
};

struct LineRateFlowRecord {
  uint32_t id = 0;
  LineRateFlowSpec spec;
  uint64_t packets = 0;  // packets the flow is cut into
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;
  uint64_t packets_received = 0;
  uint64_t ce_marked = 0;              // arrived with ECN CE
  uint64_t out_of_order = 0;           // arrived with a PSN other than the next expected
  Time first_byte_sent = Time::max();  // when the first packet started transmission
  Time last_byte_received = Time::max();
  bool complete = false;

  Time completion_time() const { return last_byte_received - first_byte_sent; }
};

using FlowCompletionHandler = InplaceFunction<void(const LineRateFlowRecord&), 32>;

// Must not outlive its hosts: its destructor hands their listener and handler back.
class LineRateFlows final : private NicTransmitListener {
 public:
  // Throws Error for an MTU of zero.
  LineRateFlows(world::Scheduler& scheduler, uint32_t mtu_bytes = 1024);
  ~LineRateFlows() override;
  LineRateFlows(const LineRateFlows&) = delete;
  LineRateFlows& operator=(const LineRateFlows&) = delete;

  // Returns the flow id. Takes over the source host's transmit listener and the destination
  // host's receive handler; throws Error for a bad spec or a host another sender owns.
  uint32_t add(const LineRateFlowSpec& spec);
  void set_completion_handler(FlowCompletionHandler handler) { on_complete_ = std::move(handler); }

  const LineRateFlowRecord& flow(uint32_t id) const { return flows_.at(id); }
  const std::vector<LineRateFlowRecord>& flows() const { return flows_; }
  std::size_t completed() const { return completed_; }
  // Packets a sink host received that belong to no flow of this object.
  uint64_t foreign_packets() const { return foreign_packets_; }
  uint32_t mtu() const { return mtu_; }

 private:
  void on_nic_transmit(uint32_t tag) override;
  void send_next(uint32_t id);
  void receive(world::PacketPtr packet);
  uint32_t payload_of(uint32_t id, uint64_t index) const;

  world::Scheduler& scheduler_;
  uint32_t mtu_;
  std::vector<LineRateFlowRecord> flows_;
  std::vector<uint64_t> next_packet_;   // per flow: index of the next packet to queue
  std::vector<uint32_t> expected_psn_;  // per flow: next PSN expected at the sink
  std::vector<Host*> sources_;
  std::vector<Host*> sinks_;
  std::vector<world::TimerId> starts_;
  std::size_t completed_ = 0;
  uint64_t foreign_packets_ = 0;
  FlowCompletionHandler on_complete_;
};

}  // namespace bifrost::net
