#include "bifrost/transport/rtt/rogue_batch.h"

#include <algorithm>

#include "bifrost/rnic/segmenter.h"
#include "bifrost/wire/frame.h"

namespace bifrost::transport {
namespace {

using rnic::PacketPosition;

wire::Opcode read_response_opcode(PacketPosition position) {
  switch (position) {
    case PacketPosition::first:
      return wire::Opcode::kRcReadResponseFirst;
    case PacketPosition::middle:
      return wire::Opcode::kRcReadResponseMiddle;
    case PacketPosition::last:
      return wire::Opcode::kRcReadResponseLast;
    case PacketPosition::only:
      break;
  }
  return wire::Opcode::kRcReadResponseOnly;
}

}  // namespace

Time batch_serialization(const RogueBatch& batch, Rate line_rate) {
  const Time at_line = serialization_time(
      Bytes(batch.wire_bytes + batch.packets * kLineBytesPerFrameBeyondMetered), line_rate);
  if (batch.rate_limit <= Rate::bps(0)) return at_line;
  return std::max(serialization_time(Bytes(batch.wire_bytes), batch.rate_limit), at_line);
}

Time idle_batch_serialization(const RogueBatch& batch, Rate line_rate, Bytes burst) {
  const Time at_line = serialization_time(
      Bytes(batch.wire_bytes + batch.packets * kLineBytesPerFrameBeyondMetered), line_rate);
  if (batch.rate_limit <= Rate::bps(0)) return at_line;
  const uint64_t packets = std::max<uint64_t>(batch.packets, 1);
  const uint64_t last = batch.wire_bytes / packets;
  // The last packet starts once the others are paced out less the credit, and takes its line time.
  const Time last_start = serialization_time(Bytes(batch.wire_bytes - last), batch.rate_limit) -
                          serialization_time(burst, batch.rate_limit);
  const Time last_line =
      serialization_time(Bytes(last + kLineBytesPerFrameBeyondMetered), line_rate);
  return std::max(at_line, last_start + last_line);
}

uint64_t verb_packets(rnic::WrOpcode opcode, uint64_t length, uint32_t mtu) {
  return opcode == rnic::WrOpcode::rdma_read ? rnic::read_response_count(length, mtu)
                                             : rnic::packet_count(length, mtu);
}

uint64_t verb_wire_bytes(rnic::QpType type, rnic::WrOpcode opcode, uint64_t length, uint32_t mtu) {
  const bool read = opcode == rnic::WrOpcode::rdma_read;
  const uint64_t packets = verb_packets(opcode, length, mtu);
  const auto frame = [&](PacketPosition position, uint64_t payload) -> uint64_t {
    const wire::Opcode op =
        read ? read_response_opcode(position) : rnic::request_opcode(type, opcode, position);
    return wire::ethernet_frame_size(op, payload);
  };
  if (packets == 1) return frame(PacketPosition::only, length);
  // Every packet but the last carries a full MTU (a multiple of 4: no pad).
  return frame(PacketPosition::first, mtu) + (packets - 2) * frame(PacketPosition::middle, mtu) +
         frame(PacketPosition::last, length - (packets - 1) * mtu);
}

}  // namespace bifrost::transport
