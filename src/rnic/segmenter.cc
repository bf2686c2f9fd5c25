#include "bifrost/rnic/segmenter.h"

#include <algorithm>

#include "bifrost/core/error.h"

namespace bifrost::rnic {

std::string_view to_string(WrOpcode opcode) {
  switch (opcode) {
    case WrOpcode::send:
      return "SEND";
    case WrOpcode::send_with_imm:
      return "SEND_WITH_IMM";
    case WrOpcode::rdma_write:
      return "RDMA_WRITE";
    case WrOpcode::rdma_write_with_imm:
      return "RDMA_WRITE_WITH_IMM";
    case WrOpcode::rdma_read:
      return "RDMA_READ";
  }
  return "unknown";
}

void check_mtu(uint32_t mtu) {
  if (mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096) {
    throw Error("path MTU {} is not supported: use 256, 512, 1024, 2048 or 4096", mtu);
  }
}

namespace {

void check_length(uint64_t length) {
  if (length > kMaxMessageLength) {
    throw Error("message length {} exceeds the RETH DMA length limit: use at most {} (2^31) bytes",
                length, kMaxMessageLength);
  }
}

}  // namespace

uint32_t packet_count(uint64_t length, uint32_t mtu) {
  check_mtu(mtu);
  check_length(length);
  if (length == 0) return 1;
  return static_cast<uint32_t>((length + mtu - 1) / mtu);
}

uint32_t request_packet_count(const SendWqe& wqe, uint32_t mtu) {
  if (wqe.opcode == WrOpcode::rdma_read) {
    check_mtu(mtu);
    check_length(wqe.length);
    return 1;
  }
  return packet_count(wqe.length, mtu);
}

uint32_t read_response_count(uint64_t length, uint32_t mtu) {
  return packet_count(length, mtu);
}

void check_wqe(QpType type, const SendWqe& wqe, uint32_t mtu) {
  check_mtu(mtu);
  check_length(wqe.length);
  switch (wqe.opcode) {
    case WrOpcode::rdma_read:
      if (type != QpType::rc) {
        throw Error("{} is not supported on a {} QP: RDMA READ needs an rc QP",
                    to_string(wqe.opcode), to_string(type));
      }
      break;
    case WrOpcode::rdma_write:
    case WrOpcode::rdma_write_with_imm:
      if (type == QpType::ud) {
        throw Error("{} is not supported on a ud QP: RDMA WRITE needs an rc or uc QP",
                    to_string(wqe.opcode));
      }
      break;
    case WrOpcode::send:
    case WrOpcode::send_with_imm:
      if (type == QpType::ud && wqe.length > mtu) {
        throw Error(
            "{} of {} bytes does not fit the path MTU {} of a ud QP: a UD message must be one "
            "packet",
            to_string(wqe.opcode), wqe.length, mtu);
      }
      break;
  }
}

wire::Opcode request_opcode(QpType type, WrOpcode wqe_opcode, PacketPosition position) {
  const bool imm =
      wqe_opcode == WrOpcode::send_with_imm || wqe_opcode == WrOpcode::rdma_write_with_imm;
  const bool only = position == PacketPosition::only;
  if (wqe_opcode == WrOpcode::rdma_read) {
    if (type != QpType::rc) {
      throw Error("RDMA_READ is not supported on a {} QP: RDMA READ needs an rc QP",
                  to_string(type));
    }
    if (!only) throw Error("an RDMA READ request is always a single packet");
    return wire::Opcode::kRcReadRequest;
  }
  const bool write =
      wqe_opcode == WrOpcode::rdma_write || wqe_opcode == WrOpcode::rdma_write_with_imm;
  if (type == QpType::ud) {
    if (write) {
      throw Error("{} is not supported on a ud QP: RDMA WRITE needs an rc or uc QP",
                  to_string(wqe_opcode));
    }
    if (!only) throw Error("a UD message is always a single packet");
    return imm ? wire::Opcode::kUdSendOnlyImm : wire::Opcode::kUdSendOnly;
  }
  // RC and UC share the layout of table 38: transport base (RC 0x00, UC 0x20), SEND at +0,
  // WRITE at +6, then first, middle, last, last-with-imm, only, only-with-imm.
  uint8_t code = type == QpType::rc ? 0x00 : 0x20;
  if (write) code += 6;
  switch (position) {
    case PacketPosition::first:
      break;
    case PacketPosition::middle:
      code += 1;
      break;
    case PacketPosition::last:
      code += imm ? 3 : 2;
      break;
    case PacketPosition::only:
      code += imm ? 5 : 4;
      break;
  }
  return static_cast<wire::Opcode>(code);
}

uint64_t write_placement(uint32_t psn, uint32_t first_psn, uint64_t first_va, uint32_t mtu) {
  check_mtu(mtu);
  const int32_t index = wire::psn_diff(psn & wire::kPsnMask, first_psn & wire::kPsnMask);
  if (index < 0) {
    throw Error("PSN {:#08x} precedes the first PSN {:#08x} of its message", psn, first_psn);
  }
  return first_va + static_cast<uint64_t>(index) * mtu;
}

SegmentedPacket segment_packet(QpType type, const SendWqe& wqe, uint32_t mtu, uint32_t first_psn,
                               uint32_t dest_qp, uint32_t index) {
  const bool read = wqe.opcode == WrOpcode::rdma_read;
  const bool write =
      wqe.opcode == WrOpcode::rdma_write || wqe.opcode == WrOpcode::rdma_write_with_imm;
  const bool imm =
      wqe.opcode == WrOpcode::send_with_imm || wqe.opcode == WrOpcode::rdma_write_with_imm;
  const uint32_t count = read ? 1 : packet_count(wqe.length, mtu);
  const bool first = index == 0;
  const bool last = index + 1 == count;
  const PacketPosition position = count == 1 ? PacketPosition::only
                                  : first    ? PacketPosition::first
                                  : last     ? PacketPosition::last
                                             : PacketPosition::middle;
  SegmentedPacket p;
  p.payload_offset = read ? 0 : uint64_t{index} * mtu;
  p.payload_length =
      read ? 0 : static_cast<uint32_t>(std::min<uint64_t>(wqe.length - p.payload_offset, mtu));
  wire::RoceHeaders& h = p.headers;
  h.bth.dest_qp = dest_qp & wire::kPsnMask;
  h.bth.opcode = request_opcode(type, wqe.opcode, position);
  h.bth.psn = wire::psn_add(first_psn, index);
  h.bth.solicited = last && wqe.solicited;
  h.bth.ack_request = last && type == QpType::rc;
  h.bth.pad_count = static_cast<uint8_t>((4 - (p.payload_length & 3)) & 3);
  if (first && (read || write)) {
    h.reth.virtual_address = wqe.remote_addr;
    h.reth.rkey = wqe.rkey;
    h.reth.dma_length = static_cast<uint32_t>(wqe.length);
  }
  h.immediate = last && imm ? wqe.imm : 0;
  return p;
}

}  // namespace bifrost::rnic
