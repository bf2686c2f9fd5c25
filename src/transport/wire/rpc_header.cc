#include "bifrost/transport/wire/rpc_header.h"

#include "bifrost/wire/byte_order.h"

namespace bifrost::transport {

using namespace wire::detail;

wire::Result<std::size_t> encode_rpc_header(const RpcHeader& h, std::span<std::byte> out) {
  if (out.size() < kRpcHeaderBytes)
    return wire::fail<std::size_t>(wire::WireError::kBufferTooSmall);
  std::byte* p = out.data();
  store_be16(p, kRpcMagic);
  store_u8(p + 2, static_cast<uint8_t>(h.kind));
  store_u8(p + 3, static_cast<uint8_t>(h.status));
  store_be32(p + 4, 0);
  store_be64(p + 8, h.id);
  return {kRpcHeaderBytes};
}

wire::Result<RpcHeader> decode_rpc_header(std::span<const std::byte> in) {
  if (in.size() < kRpcHeaderBytes) return wire::fail<RpcHeader>(wire::WireError::kTruncated);
  const std::byte* p = in.data();
  const uint8_t kind = u8(p + 2);
  const uint8_t status = u8(p + 3);
  const bool request = (kind == static_cast<uint8_t>(RpcKind::request) ||
                        kind == static_cast<uint8_t>(RpcKind::read_request)) &&
                       status == 0;
  const bool response = kind == static_cast<uint8_t>(RpcKind::response) &&
                        status <= static_cast<uint8_t>(RpcStatus::request_unreadable) &&
                        status != static_cast<uint8_t>(RpcStatus::failed);
  if (load_be16(p) != kRpcMagic || load_be32(p + 4) != 0 || !(request || response)) {
    return wire::fail<RpcHeader>(wire::WireError::kFieldOutOfRange);
  }
  return {RpcHeader{.kind = static_cast<RpcKind>(kind),
                    .status = static_cast<RpcStatus>(status),
                    .id = load_be64(p + 8)}};
}

wire::Result<std::size_t> encode_rpc_read_descriptor(const RpcReadDescriptor& d,
                                                     std::span<std::byte> out) {
  if (out.size() < kRpcReadDescriptorBytes) {
    return wire::fail<std::size_t>(wire::WireError::kBufferTooSmall);
  }
  std::byte* p = out.data();
  store_be64(p, d.address);
  store_be32(p + 8, d.rkey);
  store_be32(p + 12, d.length);
  return {kRpcReadDescriptorBytes};
}

wire::Result<RpcReadDescriptor> decode_rpc_read_descriptor(std::span<const std::byte> in) {
  if (in.size() < kRpcReadDescriptorBytes) {
    return wire::fail<RpcReadDescriptor>(wire::WireError::kTruncated);
  }
  const std::byte* p = in.data();
  const RpcReadDescriptor d{
      .address = load_be64(p), .rkey = load_be32(p + 8), .length = load_be32(p + 12)};
  if (d.length == 0) return wire::fail<RpcReadDescriptor>(wire::WireError::kFieldOutOfRange);
  return {d};
}

}  // namespace bifrost::transport
