#pragma once
// The segmenter of the send path: splits one send work request into path-MTU packets and
// gives each its BTH (opcode, PSN, SE, AckReq, pad count), RETH and ImmDt. Pure functions, no
// allocation per packet: `segment` calls `emit` once per packet, in PSN order. The caller
// fills what the segmenter does not know (DETH of UD packets, P_Key, ECN bits) and copies the
// payload bytes named by (payload_offset, payload_length).
#include <cstdint>
#include <string_view>

#include "bifrost/rnic/queue_pair.h"
#include "bifrost/wire/headers.h"
#include "bifrost/wire/opcode.h"

namespace bifrost::rnic {

enum class WrOpcode : uint8_t { send, send_with_imm, rdma_write, rdma_write_with_imm, rdma_read };
std::string_view to_string(WrOpcode opcode);

struct SendWqe {
  WrOpcode opcode = WrOpcode::send;
  uint64_t length = 0;       // total message length in bytes
  uint64_t remote_addr = 0;  // WRITE / READ: remote virtual address
  uint32_t rkey = 0;         // WRITE / READ: remote key
  uint32_t imm = 0;          // *_with_imm: immediate data
  bool solicited = false;    // SE on the last packet
};

// The RETH DMA length limit: a message may be at most 2^31 bytes long.
inline constexpr uint64_t kMaxMessageLength = uint64_t{1} << 31;

// Throws Error unless mtu is 256, 512, 1024, 2048 or 4096.
void check_mtu(uint32_t mtu);
// Packets of a message carrying `length` payload bytes: at least 1, since a zero-length SEND
// or WRITE still takes one packet. Throws Error for a bad MTU or a length above 2^31.
uint32_t packet_count(uint64_t length, uint32_t mtu);
// Request packets of a work request: one for RDMA READ, packet_count(length) otherwise.
uint32_t request_packet_count(const SendWqe& wqe, uint32_t mtu);
// Response packets of an RDMA READ of `length` bytes (at least one, READ_RESPONSE_ONLY).
uint32_t read_response_count(uint64_t length, uint32_t mtu);
// Throws Error with a clear message if `wqe` cannot be sent on a QP of `type` with `mtu`:
// bad MTU, length above 2^31, READ on UC/UD, WRITE on UD, UD length above the MTU.
void check_wqe(QpType type, const SendWqe& wqe, uint32_t mtu);

// Where a packet sits in its message.
enum class PacketPosition : uint8_t { first, middle, last, only };
// The request opcode of a packet at `position` of a `wqe_opcode` message on a `type` QP.
// Throws Error for combinations check_wqe rejects, and for a READ request not at `only`.
wire::Opcode request_opcode(QpType type, WrOpcode wqe_opcode, PacketPosition position);

// Receive-side placement of an RDMA WRITE middle/last packet: the remote virtual address of
// its payload, given the PSN and the RETH address of the message's first packet. Handles PSN
// wrap; throws Error if `psn` precedes `first_psn` or the MTU is bad.
uint64_t write_placement(uint32_t psn, uint32_t first_psn, uint64_t first_va, uint32_t mtu);

// One packet of a segmented message: its headers and which payload bytes it carries.
struct SegmentedPacket {
  wire::RoceHeaders headers;
  uint64_t payload_offset = 0;
  uint32_t payload_length = 0;
};

// Packet `index` (0-based, below request_packet_count) of `wqe` sent from `first_psn` to
// `dest_qp`. Does not validate: call check_wqe once per work request first. Retransmissions
// regenerate single packets with it.
SegmentedPacket segment_packet(QpType type, const SendWqe& wqe, uint32_t mtu, uint32_t first_psn,
                               uint32_t dest_qp, uint32_t index);

// Segments `wqe` into packets with PSNs first_psn, first_psn + 1, ... (modulo 2^24) to
// `dest_qp`, calling emit(const wire::RoceHeaders&, uint64_t payload_offset,
// uint32_t payload_length) once per packet in order. Validates with check_wqe first, so it
// throws Error before emitting anything. Returns the number of packets emitted.
template <typename Fn>
uint32_t segment(QpType type, const SendWqe& wqe, uint32_t mtu, uint32_t first_psn,
                 uint32_t dest_qp, Fn&& emit) {
  check_wqe(type, wqe, mtu);
  const uint32_t count = request_packet_count(wqe, mtu);
  for (uint32_t i = 0; i < count; ++i) {
    const SegmentedPacket p = segment_packet(type, wqe, mtu, first_psn, dest_qp, i);
    emit(p.headers, p.payload_offset, p.payload_length);
  }
  return count;
}

}  // namespace bifrost::rnic
