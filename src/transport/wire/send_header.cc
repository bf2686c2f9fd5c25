#include "bifrost/transport/wire/send_header.h"

#include "bifrost/wire/byte_order.h"

namespace bifrost::transport {

using namespace wire::detail;

wire::Result<std::size_t> encode_send_header(const SendHeader& h, std::span<std::byte> out) {
  if (out.size() < kSendHeaderSize)
    return wire::fail<std::size_t>(wire::WireError::kBufferTooSmall);
  std::byte* p = out.data();
  store_u8(p, static_cast<uint8_t>(h.type));
  store_u8(p + 1, h.hint ? 1 : 0);
  store_be16(p + 2, 0);
  store_be32(p + 4, h.send_number);
  store_be64(p + 8, h.global);
  store_be32(p + 16, h.message_id);
  store_be32(p + 20, h.argument);
  store_be64(p + 24, h.address);
  return {kSendHeaderSize};
}

wire::Result<SendHeader> decode_send_header(std::span<const std::byte> in) {
  if (in.size() < kSendHeaderSize) return wire::fail<SendHeader>(wire::WireError::kTruncated);
  const std::byte* p = in.data();
  const uint8_t type = u8(p);
  const uint8_t flags = u8(p + 1);
  if (type < static_cast<uint8_t>(SendType::message) ||
      type > static_cast<uint8_t>(SendType::ack) || flags > 1 || load_be16(p + 2) != 0) {
    return wire::fail<SendHeader>(wire::WireError::kFieldOutOfRange);
  }
  return {SendHeader{.type = static_cast<SendType>(type),
                     .hint = flags == 1,
                     .send_number = load_be32(p + 4),
                     .global = load_be64(p + 8),
                     .message_id = load_be32(p + 16),
                     .argument = load_be32(p + 20),
                     .address = load_be64(p + 24)}};
}

wire::Result<std::size_t> encode_one_sided_trailer(const OneSidedTrailer& t,
                                                   std::span<std::byte> out) {
  if (out.size() < kOneSidedTrailerSize) {
    return wire::fail<std::size_t>(wire::WireError::kBufferTooSmall);
  }
  std::byte* p = out.data();
  store_be32(p, t.rkey);
  store_be32(p + 4, t.reply_rkey);
  store_be64(p + 8, t.reply_address);
  return {kOneSidedTrailerSize};
}

wire::Result<OneSidedTrailer> decode_one_sided_trailer(std::span<const std::byte> in) {
  if (in.size() < kOneSidedTrailerSize) {
    return wire::fail<OneSidedTrailer>(wire::WireError::kTruncated);
  }
  const std::byte* p = in.data();
  return {OneSidedTrailer{
      .rkey = load_be32(p), .reply_rkey = load_be32(p + 4), .reply_address = load_be64(p + 8)}};
}

}  // namespace bifrost::transport
