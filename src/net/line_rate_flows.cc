#include "bifrost/net/line_rate_flows.h"

#include <algorithm>
#include <limits>

#include "bifrost/core/error.h"
#include "bifrost/net/red_ecn.h"
#include "bifrost/wire/headers.h"

namespace bifrost::net {

LineRateFlows::LineRateFlows(world::Scheduler& scheduler, uint32_t mtu_bytes)
    : scheduler_(scheduler), mtu_(mtu_bytes) {
  if (mtu_bytes == 0) throw Error("line-rate flows need an MTU of at least one byte");
}

LineRateFlows::~LineRateFlows() {
  for (world::TimerId id : starts_) scheduler_.cancel(id);
  for (Host* host : sources_) host->set_transmit_listener(nullptr);
  for (Host* host : sinks_) host->set_receive_handler(nullptr);
}

uint32_t LineRateFlows::add(const LineRateFlowSpec& spec) {
  if (spec.src == nullptr || spec.dst == nullptr || spec.src == spec.dst) {
    throw Error("a line-rate flow needs two different hosts");
  }
  if (spec.bytes == 0) throw Error("a line-rate flow needs at least one byte");
  if (spec.priority < 0 || spec.priority >= kPriorities) {
    throw Error("flow priority must be 0..7, got {}", spec.priority);
  }
  if (flows_.size() > wire::kPsnMask) {
    throw Error("at most {} line-rate flows: the flow id is the 24-bit destination QP",
                wire::kPsnMask + 1);
  }
  if (spec.src->transmit_listener() != this) {
    if (spec.src->transmit_listener() != nullptr) {
      throw Error("host '{}' already has another sender feeding its NIC", spec.src->name());
    }
    spec.src->set_transmit_listener(this);
    sources_.push_back(spec.src);
  }
  if (std::find(sinks_.begin(), sinks_.end(), spec.dst) == sinks_.end()) {
    spec.dst->set_receive_handler([this](world::PacketPtr p) { receive(std::move(p)); });
    sinks_.push_back(spec.dst);
  }
  const auto id = static_cast<uint32_t>(flows_.size());
  LineRateFlowRecord record;
  record.id = id;
  record.spec = spec;
  record.packets = (spec.bytes + mtu_ - 1) / mtu_;
  flows_.push_back(record);
  next_packet_.push_back(0);
  expected_psn_.push_back(0);
  starts_.push_back(scheduler_.at(spec.start, [this, id] { send_next(id); }));
  return id;
}

uint32_t LineRateFlows::payload_of(uint32_t id, uint64_t index) const {
  const uint64_t offset = index * mtu_;
  return static_cast<uint32_t>(std::min<uint64_t>(mtu_, flows_[id].spec.bytes - offset));
}

void LineRateFlows::send_next(uint32_t id) {
  const LineRateFlowRecord& flow = flows_[id];
  const uint64_t index = next_packet_[id];
  if (index == flow.packets) return;
  wire::Opcode opcode = wire::Opcode::kRcWriteMiddle;
  if (flow.packets == 1) {
    opcode = wire::Opcode::kRcWriteOnly;
  } else if (index == 0) {
    opcode = wire::Opcode::kRcWriteFirst;
  } else if (index + 1 == flow.packets) {
    opcode = wire::Opcode::kRcWriteLast;
  }
  world::PacketPtr packet = world::make_packet();
  packet->src = world::Endpoint{flow.spec.src->address(), flow.spec.src_port};
  packet->dst = world::Endpoint{flow.spec.dst->address(), wire::kRoceV2UdpPort};
  packet->dscp = static_cast<uint8_t>(flow.spec.priority << 3);
  packet->ecn = flow.spec.ecn_capable ? 2 : kEcnNotEct;
  packet->roce.bth.opcode = opcode;
  packet->roce.bth.dest_qp = id;
  packet->roce.bth.psn = static_cast<uint32_t>(index & wire::kPsnMask);
  if (opcode == wire::Opcode::kRcWriteFirst || opcode == wire::Opcode::kRcWriteOnly) {
    packet->roce.reth.dma_length = static_cast<uint32_t>(
        std::min<uint64_t>(flow.spec.bytes, std::numeric_limits<uint32_t>::max()));
  }
  packet->payload.length = payload_of(id, index);
  packet->payload.token = (uint64_t{id} << 32) | (index & 0xFFFF'FFFFu);
  next_packet_[id] = index + 1;
  flow.spec.src->send_tagged(std::move(packet), id + 1);
}

void LineRateFlows::on_nic_transmit(uint32_t tag) {
  const uint32_t id = tag - 1;
  LineRateFlowRecord& flow = flows_[id];
  if (flow.first_byte_sent == Time::max()) flow.first_byte_sent = scheduler_.now();
  flow.bytes_sent += payload_of(id, next_packet_[id] - 1);
  send_next(id);  // one packet per flow waits in the NIC: the next is ready when the wire frees
}

void LineRateFlows::receive(world::PacketPtr packet) {
  const uint32_t id = packet->roce.bth.dest_qp;
  if (id >= flows_.size() || packet->dst.ip != flows_[id].spec.dst->address()) {
    ++foreign_packets_;
    return;
  }
  LineRateFlowRecord& flow = flows_[id];
  flow.bytes_received += packet->payload.length;
  ++flow.packets_received;
  if (packet->ecn == kEcnCe) ++flow.ce_marked;
  if (packet->roce.bth.psn != expected_psn_[id]) ++flow.out_of_order;
  expected_psn_[id] = wire::psn_add(packet->roce.bth.psn, 1);
  if (!flow.complete && flow.bytes_received == flow.spec.bytes) {
    flow.complete = true;
    flow.last_byte_received = scheduler_.now();
    ++completed_;
    if (on_complete_) on_complete_(flow);
  }
}

}  // namespace bifrost::net
