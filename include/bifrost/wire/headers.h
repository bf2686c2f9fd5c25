#pragma once
// Decoded RoCEv2 transport headers. Fields hold host-order values; the codec (codec.h) writes
// them big-endian as the IBTA specifies. Which optional headers are meaningful is decided by
// the opcode (header_chain), never by flags of their own, so a decoded packet cannot carry a
// header its opcode does not allow.
#include <cstdint>

#include "bifrost/wire/opcode.h"

namespace bifrost::wire {

inline constexpr uint16_t kRoceV2UdpPort = 4791;
inline constexpr uint16_t kDefaultPkey = 0xFFFF;
inline constexpr uint32_t kPsnMask = 0x00FF'FFFF;  // PSNs and QPNs are 24-bit

// Base Transport Header, 12 bytes.
struct Bth {
  Opcode opcode = Opcode::kRcSendOnly;
  bool solicited = false;  // SE
  bool migration = true;   // M (RoCE NICs send 1)
  uint8_t pad_count = 0;   // 0..3 bytes of padding before the ICRC
  uint8_t version = 0;     // TVer
  uint16_t pkey = kDefaultPkey;
  bool fecn = false;         // byte 4 bit 7 (reserved in RoCEv2 ICRC masking)
  bool becn = false;         // byte 4 bit 6
  uint32_t dest_qp = 0;      // 24 bits
  bool ack_request = false;  // A
  uint32_t psn = 0;          // 24 bits
  bool operator==(const Bth&) const = default;
};

// RDMA Extended Transport Header, 16 bytes: on WRITE first/only and READ request.
struct Reth {
  uint64_t virtual_address = 0;
  uint32_t rkey = 0;
  uint32_t dma_length = 0;
  bool operator==(const Reth&) const = default;
};

// ACK Extended Transport Header, 4 bytes: syndrome and 24-bit MSN.
struct Aeth {
  uint8_t syndrome = 0;
  uint32_t msn = 0;
  bool operator==(const Aeth&) const = default;
};

// Datagram Extended Transport Header, 8 bytes: on every UD packet.
struct Deth {
  uint32_t qkey = 0;
  uint32_t src_qp = 0;  // 24 bits
  bool operator==(const Deth&) const = default;
};

// What an AETH says, decoded from the syndrome's top three bits.
enum class AckKind : uint8_t { kAck, kRnrNak, kNak, kReserved };
enum class NakCode : uint8_t {
  kPsnSequenceError = 0,
  kInvalidRequest = 1,
  kRemoteAccessError = 2,
  kRemoteOperationalError = 3,
};

AckKind ack_kind(const Aeth& aeth);
// Low five syndrome bits: credit count (ACK), RNR timer (RNR NAK) or NakCode (NAK).
inline constexpr uint8_t syndrome_value(const Aeth& aeth) {
  return aeth.syndrome & 0x1F;
}
Aeth make_ack(uint32_t msn, uint8_t credits = 0x1F);  // 0x1F: end-to-end credits not used
Aeth make_rnr_nak(uint32_t msn, uint8_t timer);
Aeth make_nak(uint32_t msn, NakCode code);

// bifrost's selective-repeat extension header, 24 bytes after the BTH, present when the BTH's
// reserved bit next to AckReq is set (docs/wire.md). It lets a receiver place a packet that
// arrives before the first packet of its message, and check the whole message's rights on
// every packet:
//   WRITE packets:  address, key, length = the message's RETH (first VA, rkey, total length);
//                   offset = this payload's byte offset in the message; sequence = the
//                   message's receive sequence number (WRITE_WITH_IMM) or 0xFFFFFFFF;
//   SEND packets:   length = the message length, offset as above, sequence = the receive
//                   sequence number (which receive WQE); address and key 0;
//   SACKs (ACK opcode, NAK PSN-sequence syndrome): sequence = the PSN that arrived; key = the
//                   FaSR recovery state (FasrSackInfo), 0 from other engines;
//   FaSR's AACKs (ACK opcode, ACK syndrome; only while the receiver is in loss recovery):
//                   key = FasrSackInfo (its lost-cnt), the other fields 0.
struct SrExtension {
  bool present = false;
  uint64_t address = 0;
  uint32_t key = 0;
  uint32_t length = 0;
  uint32_t sequence = 0;
  uint32_t offset = 0;
  // Charge the FaSR paper's lean sizes (section IV-D, sr_extension_size in codec.h) instead of
  // 24 B. A size model for simulation: the codec writes the full form either way, and decodes
  // it with lean false.
  bool lean = false;
  bool operator==(const SrExtension&) const = default;
};

// FaSR's state in a SACK's SR extension key field: bits 0-2 the receiver's lost-cnt, bit 3 set
// when lost-cnt overflowed (more than 7 PSNs missing), bit 4 set on an FNACK (a retransmission
// was lost; the sender times out early). Other engines leave the field 0.
struct FasrSackInfo {
  uint8_t lost_cnt = 0;
  bool overflow = false;
  bool fnack = false;
  bool operator==(const FasrSackInfo&) const = default;
};
inline constexpr uint32_t encode_fasr_info(const FasrSackInfo& info) {
  return (info.lost_cnt & 7u) | (info.overflow ? 8u : 0u) | (info.fnack ? 16u : 0u);
}
inline constexpr FasrSackInfo decode_fasr_info(uint32_t key) {
  return FasrSackInfo{static_cast<uint8_t>(key & 7u), (key & 8u) != 0, (key & 16u) != 0};
}

// Every transport header of one packet. Only the headers in header_chain(bth.opcode) are
// encoded or meaningful after decoding.
struct RoceHeaders {
  Bth bth;
  Deth deth;
  Reth reth;
  Aeth aeth;
  uint32_t immediate = 0;  // ImmDt, carried big-endian; the value is opaque to the NIC
  SrExtension sr;
  bool operator==(const RoceHeaders&) const = default;
};

// The headers of a RoCEv2 CNP as annex A17.9.3 lays it out and ConnectX NICs send it: opcode
// 0x81, SE / M / A clear, BECN set, PSN 0, P_Key copied from the CE-marked packet and the
// destination QP set to that packet's sender QP, the one to slow down.
inline constexpr RoceHeaders make_cnp(uint32_t dest_qp, uint16_t pkey = kDefaultPkey) {
  RoceHeaders h;
  h.bth.opcode = Opcode::kCnp;
  h.bth.migration = false;
  h.bth.pkey = pkey;
  h.bth.becn = true;
  h.bth.dest_qp = dest_qp;
  return h;
}

// PSN arithmetic modulo 2^24.
inline constexpr uint32_t psn_add(uint32_t psn, uint32_t n) {
  return (psn + n) & kPsnMask;
}
// Signed distance from `from` to `to` in the 24-bit circle, in [-2^23, 2^23).
inline constexpr int32_t psn_diff(uint32_t to, uint32_t from) {
  return static_cast<int32_t>(((to - from) & kPsnMask) << 8) >> 8;
}
// True if `a` comes before `b` in the 24-bit circle.
inline constexpr bool psn_before(uint32_t a, uint32_t b) {
  return psn_diff(a, b) < 0;
}

}  // namespace bifrost::wire
