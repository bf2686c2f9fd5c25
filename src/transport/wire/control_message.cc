#include "bifrost/transport/wire/control_message.h"

#include "bifrost/wire/byte_order.h"

namespace bifrost::transport {

using namespace wire::detail;
using wire::WireError;

namespace {

constexpr uint32_t k24Bits = 0xFF'FFFF;
constexpr std::size_t kMarkerOffset = 4;

bool known_kind(uint8_t kind) {
  return kind == static_cast<uint8_t>(ControlKind::reconnect_request) ||
         kind == static_cast<uint8_t>(ControlKind::reconnect_reply);
}

}  // namespace

bool is_control_message(std::span<const std::byte> in) {
  return in.size() > kMarkerOffset && u8(in.data() + kMarkerOffset) == 0;
}

wire::Result<std::size_t> encode_control_message(const ControlMessage& m,
                                                 std::span<std::byte> out) {
  if (m.qpn > k24Bits || m.psn > k24Bits || !known_kind(static_cast<uint8_t>(m.kind))) {
    return wire::fail<std::size_t>(WireError::kFieldOutOfRange);
  }
  if (out.size() < kControlMessageSize) return wire::fail<std::size_t>(WireError::kBufferTooSmall);
  std::byte* p = out.data();
  store_be32(p, m.connection);
  store_u8(p + kMarkerOffset, 0);
  store_u8(p + 5, static_cast<uint8_t>(m.kind));
  store_be16(p + 6, m.qp_index);
  store_be32(p + 8, m.sequence);
  store_be32(p + 12, m.qpn);
  store_be32(p + 16, m.psn);
  return {kControlMessageSize};
}

wire::Result<ControlMessage> decode_control_message(std::span<const std::byte> in) {
  if (in.size() < kControlMessageSize) return wire::fail<ControlMessage>(WireError::kTruncated);
  if (in.size() > kControlMessageSize) {
    return wire::fail<ControlMessage>(WireError::kPayloadNotAllowed);
  }
  const std::byte* p = in.data();
  const uint8_t kind = u8(p + 5);
  ControlMessage m{.connection = load_be32(p),
                   .kind = static_cast<ControlKind>(kind),
                   .qp_index = load_be16(p + 6),
                   .sequence = load_be32(p + 8),
                   .qpn = load_be32(p + 12),
                   .psn = load_be32(p + 16)};
  if (u8(p + kMarkerOffset) != 0 || !known_kind(kind) || m.qpn > k24Bits || m.psn > k24Bits) {
    return wire::fail<ControlMessage>(WireError::kFieldOutOfRange);
  }
  return {m};
}

}  // namespace bifrost::transport
