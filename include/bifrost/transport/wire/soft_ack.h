#pragma once
// The software ACK (the Bifröst paper's A.1.2): one UD SEND that acknowledges up to 32 WQEs of
// one connection, each by 4 bytes, and carries what the sender needs for one exact RTT sample.
//
// Header (A.1.2's 24 bytes, then 8 of ours; network order):
//   0  u32 connection     the id the *sender* gave the connection (so it finds it in O(1))
//   4  u8  count          entries that follow, 1..32
//   5  u8  timing_entry   the entry whose receive the ACK delay below measures; 0xFF: none
//   6  u16 flags          bit 0 (kSoftAckEcnEcho): some acknowledged WQE arrived CE-marked
//                         (the receiver's echo of ECN, for rate-based CC); the rest 0
//   8  u32 type_bitmap    bit i (least significant first) is entry i's space: 1 SEND, 0 WRITE
//  12  u32 ack_delay_ns   T3' - T2: from that entry's receive completion (NIC clock) to the
//                         moment software posted this ACK (software clock, converted)
//  16  u64 base_global    the least global number among the SEND entries (0 if none)
// Cumulative part (8 bytes, bifrost's addition to A.1.2; see docs/transport.md):
//  24  u32 send_cumulative   every SEND reliable number below it (mod 2^32) has arrived
//  28  u32 write_cumulative  a WRITE entry (message id, unit offset; hint bit 0): every unit of
//                            every earlier WRITE message, and of this one below the offset,
//                            has arrived
// A later ACK so covers the WQEs of an earlier one that was lost, and the sender does not
// take them for lost data.
// Entries (4 bytes each), after the 32-byte header:
//   SEND entry:  global - base_global (a SEND WQE carries its global number in its header)
//   WRITE entry: the chunk's immediate data without the hint bit (message id and unit offset
//                identify the one transmission of that chunk: retransmissions go by SEND)
//
// Bit order: the paper's text and its example disagree; bifrost numbers entries from the least
// significant bit, so entry i is (type_bitmap >> i) & 1.
//
// A SEND WQE whose global number is 2^32 or more above the base cannot be encoded; the ACK
// builder leaves it for the next ACK (see reliability/ack_builder.h).
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "bifrost/wire/result.h"

namespace bifrost::transport {

inline constexpr std::size_t kSoftAckHeaderSize = 32;
inline constexpr std::size_t kSoftAckMaxEntries = 32;
inline constexpr std::size_t kSoftAckMaxSize = kSoftAckHeaderSize + 4 * kSoftAckMaxEntries;
inline constexpr uint8_t kNoTimingEntry = 0xFF;
inline constexpr uint16_t kSoftAckEcnEcho = 0x0001;

// One acknowledged WQE, decoded: a SEND by its global number, a WRITE chunk by its immediate.
struct AckedWqe {
  bool is_send = false;
  uint64_t global = 0;     // SEND entries
  uint32_t write_imm = 0;  // WRITE entries (hint bit clear)
};

struct SoftAck {
  uint32_t connection = 0;
  uint8_t timing_entry = kNoTimingEntry;
  uint32_t ack_delay_ns = 0;
  uint8_t count = 0;
  bool ecn_echo = false;  // some acknowledged WQE was CE-marked (flags bit 0)
  uint32_t send_cumulative = 0;
  uint32_t write_cumulative = 0;  // a WRITE immediate without the hint bit
  std::array<AckedWqe, kSoftAckMaxEntries> entries{};
};

// Encodes `ack` into out. kFieldOutOfRange: count 0 or above 32, a timing entry past count, a
// WRITE immediate (an entry or the cumulative) with the hint bit, or a SEND global 2^32 or more
// above the least one; kBufferTooSmall if out cannot hold it.
wire::Result<std::size_t> encode_soft_ack(const SoftAck& ack, std::span<std::byte> out);
// Decodes an ACK that fills `in` exactly: kTruncated for a short header or missing entries,
// kFieldOutOfRange for a bad count, timing entry, a flag bit other than the ECN echo, type bits
// past the count, a WRITE entry or cumulative with the hint bit or a SEND entry past 2^64;
// kPayloadNotAllowed for bytes after the last entry.
wire::Result<SoftAck> decode_soft_ack(std::span<const std::byte> in);

}  // namespace bifrost::transport
