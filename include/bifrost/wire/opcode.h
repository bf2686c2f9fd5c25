#pragma once
// RoCEv2 / InfiniBand BTH opcodes for the RC, UC and UD transports and the RoCEv2 Congestion
// Notification Packet, and the header chain each opcode implies (IBTA Vol. 1, section 9.2 and
// table 38; RoCEv2 annex A17.9.3 for the CNP).
#include <cstdint>
#include <string_view>

namespace bifrost::wire {

enum class Opcode : uint8_t {
  // Reliable Connected (transport bits 000).
  kRcSendFirst = 0x00,
  kRcSendMiddle = 0x01,
  kRcSendLast = 0x02,
  kRcSendLastImm = 0x03,
  kRcSendOnly = 0x04,
  kRcSendOnlyImm = 0x05,
  kRcWriteFirst = 0x06,
  kRcWriteMiddle = 0x07,
  kRcWriteLast = 0x08,
  kRcWriteLastImm = 0x09,
  kRcWriteOnly = 0x0A,
  kRcWriteOnlyImm = 0x0B,
  kRcReadRequest = 0x0C,
  kRcReadResponseFirst = 0x0D,
  kRcReadResponseMiddle = 0x0E,
  kRcReadResponseLast = 0x0F,
  kRcReadResponseOnly = 0x10,
  kRcAcknowledge = 0x11,
  // Unreliable Connected (transport bits 001).
  kUcSendFirst = 0x20,
  kUcSendMiddle = 0x21,
  kUcSendLast = 0x22,
  kUcSendLastImm = 0x23,
  kUcSendOnly = 0x24,
  kUcSendOnlyImm = 0x25,
  kUcWriteFirst = 0x26,
  kUcWriteMiddle = 0x27,
  kUcWriteLast = 0x28,
  kUcWriteLastImm = 0x29,
  kUcWriteOnly = 0x2A,
  kUcWriteOnlyImm = 0x2B,
  // Unreliable Datagram (transport bits 011).
  kUdSendOnly = 0x64,
  kUdSendOnlyImm = 0x65,
  // Congestion Notification Packet (transport bits 100, RoCEv2 annex A17.9.3): the DCQCN
  // notification point tells the sender's QP (bth.dest_qp) to slow down.
  kCnp = 0x81,
};

enum class Transport : uint8_t { kRc, kUc, kUd, kCnp };

// Which headers follow the BTH, in wire order: DETH, RETH, AETH, ImmDt, then payload. A CNP
// instead carries 16 reserved bytes and nothing else.
struct HeaderChain {
  bool deth = false;
  bool reth = false;
  bool aeth = false;
  bool immdt = false;
  bool payload = false;       // the opcode may carry payload bytes
  bool cnp_reserved = false;  // 16 reserved bytes after the BTH: sent as zero, ignored on receive
};

// True for every opcode listed above; false for reserved or unsupported values.
bool is_supported(uint8_t raw_opcode);
// The header chain of a supported opcode.
HeaderChain header_chain(Opcode op);
Transport transport_of(Opcode op);
// Short upper-case name such as "RC_RDMA_WRITE_FIRST" (or "CNP"), for tables and logs.
std::string_view opcode_name(Opcode op);

}  // namespace bifrost::wire
