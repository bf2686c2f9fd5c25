#pragma once
// In-band control messages: UD SENDs on the same QP as software ACKs, in both worlds. Today they
// carry the background reconnect of a connection's QP (A.3), which is also its PSN resync: the
// peers agree on a fresh QP pair with new first PSNs (and a new UDP source port, chosen locally).
//
// Layout (20 bytes, network order):
//   0  u32 connection  the id the *receiver* gave the connection (as in a software ACK)
//   4  u8  marker      0: a control message (a software ACK's count byte is 1..32 here)
//   5  u8  kind        1 reconnect request, 2 reconnect reply
//   6  u16 qp_index    which QP of the connection (0 = the first in the offer)
//   8  u32 sequence    request number; a reply echoes its request's
//  12  u32 qpn         the sender's new QP for that index (24 bits)
//  16  u32 psn         the first PSN that new QP sends (24 bits)
#include <cstddef>
#include <cstdint>
#include <span>

#include "bifrost/wire/result.h"

namespace bifrost::transport {

inline constexpr std::size_t kControlMessageSize = 20;

enum class ControlKind : uint8_t { reconnect_request = 1, reconnect_reply = 2 };

struct ControlMessage {
  uint32_t connection = 0;
  ControlKind kind = ControlKind::reconnect_request;
  uint16_t qp_index = 0;
  uint32_t sequence = 0;
  uint32_t qpn = 0;
  uint32_t psn = 0;
};

// True if a UD message starting with `in` is a control message rather than a software ACK.
bool is_control_message(std::span<const std::byte> in);
// kFieldOutOfRange for a QPN or PSN above 24 bits; kBufferTooSmall if out is short.
wire::Result<std::size_t> encode_control_message(const ControlMessage& m, std::span<std::byte> out);
// kTruncated if short, kPayloadNotAllowed for trailing bytes, kFieldOutOfRange for a non-zero
// marker, an unknown kind or a QPN/PSN above 24 bits.
wire::Result<ControlMessage> decode_control_message(std::span<const std::byte> in);

}  // namespace bifrost::transport
