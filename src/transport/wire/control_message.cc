#include "bifrost/transport/wire/control_message.h"

#include <algorithm>

#include "bifrost/wire/byte_order.h"

namespace bifrost::transport {

using namespace wire::detail;
using wire::WireError;

namespace {

constexpr uint32_t k24Bits = 0xFF'FFFF;
constexpr std::size_t kMarkerOffset = 4;
constexpr std::size_t kKindOffset = 5;
constexpr std::size_t kIndexOffset = 6;  // qp_index or parameter
constexpr std::size_t kSequenceOffset = 8;
constexpr std::size_t kBodyOffset = 12;  // qpn and psn, a value, or a status and zeros

bool known_kind(uint8_t kind) {
  return kind >= static_cast<uint8_t>(ControlKind::reconnect_request) &&
         kind <= static_cast<uint8_t>(ControlKind::takeover_ack);
}

// The kinds that name a QP index and carry a 64-bit value (set_rate, takeover and its ack).
bool is_path_action(ControlKind kind) {
  return kind == ControlKind::set_rate || kind == ControlKind::takeover ||
         kind == ControlKind::takeover_ack;
}

bool is_reconnect(ControlKind kind) {
  return kind == ControlKind::reconnect_request || kind == ControlKind::reconnect_reply;
}

// Only the peer's verdicts travel; timed_out is local.
bool wire_status(uint8_t status) {
  return status == static_cast<uint8_t>(ParameterStatus::applied) ||
         status == static_cast<uint8_t>(ParameterStatus::refused);
}

bool encodable(const ControlMessage& m) {
  if (!known_kind(static_cast<uint8_t>(m.kind))) return false;
  if (is_reconnect(m.kind)) return m.qpn <= k24Bits && m.psn <= k24Bits;
  if (is_path_action(m.kind)) return true;
  if (!is_remote_parameter(static_cast<uint16_t>(m.parameter))) return false;
  return m.kind == ControlKind::parameter_set || wire_status(static_cast<uint8_t>(m.status));
}

// The kind-specific fields at kIndexOffset and kBodyOffset; false if they are out of range.
bool decode_body(const std::byte* p, ControlMessage& m) {
  const uint16_t index = load_be16(p + kIndexOffset);
  const std::byte* body = p + kBodyOffset;
  switch (m.kind) {
    case ControlKind::reconnect_request:
    case ControlKind::reconnect_reply:
      m.qp_index = index;
      m.qpn = load_be32(body);
      m.psn = load_be32(body + 4);
      return m.qpn <= k24Bits && m.psn <= k24Bits;
    case ControlKind::parameter_set:
      m.parameter = static_cast<RemoteParameter>(index);
      m.value = load_be64(body);
      return is_remote_parameter(index);
    case ControlKind::parameter_ack: {
      m.parameter = static_cast<RemoteParameter>(index);
      m.status = static_cast<ParameterStatus>(u8(body));
      const bool zeros = std::all_of(body + 1, p + kControlMessageSize,
                                     [](std::byte b) { return b == std::byte{0}; });
      return is_remote_parameter(index) && wire_status(u8(body)) && zeros;
    }
    case ControlKind::set_rate:
    case ControlKind::takeover:
    case ControlKind::takeover_ack:
      m.qp_index = index;
      m.value = load_be64(body);
      return true;
  }
  return false;
}

}  // namespace

bool is_control_message(std::span<const std::byte> in) {
  return in.size() > kMarkerOffset && u8(in.data() + kMarkerOffset) == 0;
}

wire::Result<std::size_t> encode_control_message(const ControlMessage& m,
                                                 std::span<std::byte> out) {
  if (!encodable(m)) return wire::fail<std::size_t>(WireError::kFieldOutOfRange);
  if (out.size() < kControlMessageSize) return wire::fail<std::size_t>(WireError::kBufferTooSmall);
  std::byte* p = out.data();
  std::fill_n(p, kControlMessageSize, std::byte{0});
  store_be32(p, m.connection);
  store_u8(p + kKindOffset, static_cast<uint8_t>(m.kind));
  store_be32(p + kSequenceOffset, m.sequence);
  std::byte* body = p + kBodyOffset;
  switch (m.kind) {
    case ControlKind::reconnect_request:
    case ControlKind::reconnect_reply:
      store_be16(p + kIndexOffset, m.qp_index);
      store_be32(body, m.qpn);
      store_be32(body + 4, m.psn);
      break;
    case ControlKind::parameter_set:
      store_be16(p + kIndexOffset, static_cast<uint16_t>(m.parameter));
      store_be64(body, m.value);
      break;
    case ControlKind::parameter_ack:
      store_be16(p + kIndexOffset, static_cast<uint16_t>(m.parameter));
      store_u8(body, static_cast<uint8_t>(m.status));
      break;
    case ControlKind::set_rate:
    case ControlKind::takeover:
    case ControlKind::takeover_ack:
      store_be16(p + kIndexOffset, m.qp_index);
      store_be64(body, m.value);
      break;
  }
  return {kControlMessageSize};
}

wire::Result<ControlMessage> decode_control_message(std::span<const std::byte> in) {
  if (in.size() < kControlMessageSize) return wire::fail<ControlMessage>(WireError::kTruncated);
  if (in.size() > kControlMessageSize) {
    return wire::fail<ControlMessage>(WireError::kPayloadNotAllowed);
  }
  const std::byte* p = in.data();
  const uint8_t kind = u8(p + kKindOffset);
  if (u8(p + kMarkerOffset) != 0 || !known_kind(kind)) {
    return wire::fail<ControlMessage>(WireError::kFieldOutOfRange);
  }
  ControlMessage m{.connection = load_be32(p),
                   .kind = static_cast<ControlKind>(kind),
                   .sequence = load_be32(p + kSequenceOffset)};
  if (!decode_body(p, m)) return wire::fail<ControlMessage>(WireError::kFieldOutOfRange);
  return {m};
}

}  // namespace bifrost::transport
