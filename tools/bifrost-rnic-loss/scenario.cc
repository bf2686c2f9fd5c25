#include "scenario.h"

#include <algorithm>
#include <cmath>

#include "bifrost/core/error.h"
#include "bifrost/rnic/segmenter.h"
#include "bifrost/wire/frame.h"

namespace bifrost::rnic_loss {

Time microseconds(double us) {
  return Time::ps(std::llround(us * 1e6));
}

Rate gigabits(double gbps) {
  return Rate::bps(std::llround(gbps * 1e9));
}

rnic::WrOpcode wr_opcode(const Options& o, uint32_t q) {
  if (o.opcode == "send") return rnic::WrOpcode::send;
  const bool read = o.opcode == "read" || (mixed(o) && q % 2 == 1);
  return read ? rnic::WrOpcode::rdma_read : rnic::WrOpcode::rdma_write;
}

int data_side(const Options& o) {
  return wr_opcode(o) == rnic::WrOpcode::rdma_read ? 1 : 0;
}

namespace {

// Wire bytes of one message's data packets (requests, or READ responses).
uint64_t message_wire_bytes(const Options& o, rnic::WrOpcode op, bool selective,
                            bool lean_sr_header) {
  if (op == rnic::WrOpcode::rdma_read) {
    // The data travels in READ responses, which carry no SR extension.
    const uint32_t count = rnic::read_response_count(o.message_bytes, o.mtu);
    uint64_t wire_bytes = 0;
    for (uint32_t i = 0; i < count; ++i) {
      const uint32_t length = std::min<uint32_t>(o.mtu, o.message_bytes - i * o.mtu);
      const auto opcode = count == 1       ? wire::Opcode::kRcReadResponseOnly
                          : i == 0         ? wire::Opcode::kRcReadResponseFirst
                          : i + 1 == count ? wire::Opcode::kRcReadResponseLast
                                           : wire::Opcode::kRcReadResponseMiddle;
      wire_bytes += wire::ethernet_frame_size(opcode, length);
    }
    return wire_bytes;
  }
  rnic::SendWqe wqe;
  wqe.opcode = op;
  wqe.length = o.message_bytes;
  uint64_t wire_bytes = 0;
  rnic::segment(rnic::QpType::rc, wqe, o.mtu, 0, 2,
                [&](wire::RoceHeaders h, uint64_t /*offset*/, uint32_t length) {
                  h.sr.present = selective;
                  h.sr.lean = lean_sr_header;
                  wire_bytes += wire::ethernet_frame_size(h, length);
                });
  return wire_bytes;
}

}  // namespace

double ceiling_fraction(const Options& o, bool selective, bool lean_sr_header) {
  if (mixed(o)) {
    // As many READs as WRITEs: each direction of the wire carries one kind's data. The ceiling
    // of the goodput over one direction's line rate is their mean.
    const auto write = message_wire_bytes(o, rnic::WrOpcode::rdma_write, selective, lean_sr_header);
    const auto read = message_wire_bytes(o, rnic::WrOpcode::rdma_read, selective, lean_sr_header);
    return static_cast<double>(o.message_bytes) * (1.0 / write + 1.0 / read) / 2;
  }
  return static_cast<double>(o.message_bytes) /
         static_cast<double>(message_wire_bytes(o, wr_opcode(o), selective, lean_sr_header));
}

Time slot_time(const Options& o) {
  const auto data = wire::ethernet_frame_size(wire::Opcode::kRcWriteMiddle, o.mtu);
  return serialization_time(Bytes(data), gigabits(o.rate_gbps));
}

Time one_way_delay(const Options& o) {
  const Rate rate = gigabits(o.rate_gbps);
  const auto data = wire::ethernet_frame_size(wire::Opcode::kRcWriteMiddle, o.mtu);
  const auto ack = wire::ethernet_frame_size(wire::Opcode::kRcAcknowledge, 0);
  const Time rtt = microseconds(o.rtt_us);
  const Time serial = serialization_time(Bytes(data), rate) + serialization_time(Bytes(ack), rate);
  if (rtt <= serial) {
    throw Error("--rtt-us {} is shorter than serializing one {} B frame and its ACK at {} Gb/s",
                o.rtt_us, data, o.rate_gbps);
  }
  return (rtt - serial) / 2;
}

double largest_rto_us(const Options& o, EngineKind engine) {
  if (engine != EngineKind::gbn) return o.rto_high_us;
  const double qp = o.gbn_timeout == 0 ? 0 : 4.096 * std::ldexp(1.0, o.gbn_timeout);
  return std::max(qp, o.gbn_min_rto_us);
}

}  // namespace bifrost::rnic_loss
