#pragma once
// In-band control messages: UD SENDs on the same QP as software ACKs, in both worlds. They carry
// the background reconnect of a connection's QP (A.3), which is also its PSN resync: the peers
// agree on a fresh QP pair with new first PSNs (and a new UDP source port, chosen locally); and
// remote parameters: one side sets a value on the peer's side of the connection
// (remote_parameter.h); and path actions: set_rate asks the peer to put a rate limit on its QP
// of the connection (RoGUE paces READ responses at the responder this way), takeover tells the
// peer that a shadow QP took over and which receive-consuming message it resends first, so
// the peer's library can drop what a whole-verb resend delivers twice (acknowledged by
// takeover_ack with the same sequence).
//
// Layout (20 bytes, network order):
//   0  u32 connection  the id the *receiver* gave the connection (as in a software ACK)
//   4  u8  marker      0: a control message (a software ACK's count byte is 1..32 here)
//   5  u8  kind        1 reconnect request, 2 reconnect reply, 3 parameter set, 4 parameter ack,
//                      5 set rate, 6 takeover, 7 takeover ack
//   8  u32 sequence    request number; a reply or ack echoes its request's
// Reconnect request and reply:
//   6  u16 qp_index    which QP of the connection (0 = the first in the offer)
//  12  u32 qpn         the sender's new QP for that index (24 bits)
//  16  u32 psn         the first PSN that new QP sends (24 bits)
// Parameter set and ack:
//   6  u16 parameter   which RemoteParameter (1..4)
//  12  u64 value       set: the value asked for
//  12  u8  status      ack: 1 applied, 2 refused (the peer kept its value); then 7 zero bytes
// Set rate, takeover and takeover ack:
//   6  u16 qp_index    which QP of the connection (0 = the first in the offer); takeover: the
//                      QP that took over
//  12  u64 value       set rate: bits per second (0: unlimited); takeover: the number of the
//                      first receive-consuming message the new QP carries; ack: the same
#include <cstddef>
#include <cstdint>
#include <span>

#include "bifrost/transport/remote_parameter.h"
#include "bifrost/wire/result.h"

namespace bifrost::transport {

inline constexpr std::size_t kControlMessageSize = 20;

enum class ControlKind : uint8_t {
  reconnect_request = 1,
  reconnect_reply = 2,
  parameter_set = 3,
  parameter_ack = 4,
  set_rate = 5,
  takeover = 6,
  takeover_ack = 7
};

// One struct for every kind; the fields of the other kinds are ignored by encode and left at
// their defaults by decode.
struct ControlMessage {
  uint32_t connection = 0;
  ControlKind kind = ControlKind::reconnect_request;
  uint16_t qp_index = 0;
  uint32_t sequence = 0;
  uint32_t qpn = 0;
  uint32_t psn = 0;
  RemoteParameter parameter = RemoteParameter::ack_every_wqes;
  uint64_t value = 0;
  ParameterStatus status = ParameterStatus::applied;

  friend bool operator==(const ControlMessage&, const ControlMessage&) = default;
};

// True if a UD message starting with `in` is a control message rather than a software ACK.
bool is_control_message(std::span<const std::byte> in);
// kFieldOutOfRange for an unknown kind or parameter, a QPN or PSN above 24 bits, or an ack
// status other than applied or refused; kBufferTooSmall if out is short.
wire::Result<std::size_t> encode_control_message(const ControlMessage& m, std::span<std::byte> out);
// kTruncated if short, kPayloadNotAllowed for trailing bytes, kFieldOutOfRange for a non-zero
// marker, an unknown kind or parameter, a QPN/PSN above 24 bits, an ack status other than
// applied or refused, or a non-zero byte after an ack's status.
wire::Result<ControlMessage> decode_control_message(std::span<const std::byte> in);

}  // namespace bifrost::transport
