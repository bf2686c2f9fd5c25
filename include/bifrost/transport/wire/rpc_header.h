#pragma once
// The RPC channel's wire format (transport/rpc.h), in network byte order.
//
// Every request and response starts with a 16-byte header:
//   0  u16 magic          0x4252 ("BR")
//   2  u8  kind           RpcKind
//   3  u8  status         responses: RpcStatus (never `failed`, which is local); 0 otherwise
//   4  u32 reserved       (0)
//   8  u64 id             the request id (a response carries its request's)
//
// A read request (a large request the server pulls with a one-sided READ) carries, instead of
// the request's bytes, a 16-byte descriptor of where they are at the client:
//   0  u64 address        the request body's first byte
//   8  u32 rkey           of the client's region registered with remote_read
//  12  u32 length         the body's bytes (1 or more)
#include <cstddef>
#include <cstdint>
#include <span>

#include "bifrost/wire/result.h"

namespace bifrost::transport {

inline constexpr std::size_t kRpcHeaderBytes = 16;
inline constexpr std::size_t kRpcReadDescriptorBytes = 16;
inline constexpr uint16_t kRpcMagic = 0x4252;

enum class RpcKind : uint8_t {
  request = 1,       // the request's bytes follow
  response = 2,      // the response's bytes follow
  read_request = 3,  // a read descriptor follows: the server READs the request's bytes
};

enum class RpcStatus : uint8_t {
  ok = 0,
  no_handler = 1,          // the peer has no handler (serve() was never called)
  response_too_large = 2,  // the handler's response does not fit one message
  failed = 3,              // local only: the connection gave up on the request (every QP failed)
  request_unreadable = 4,  // the server's READ of the request was refused (rkey or range)
};

struct RpcHeader {
  RpcKind kind = RpcKind::request;
  RpcStatus status = RpcStatus::ok;
  uint64_t id = 0;
};

struct RpcReadDescriptor {
  uint64_t address = 0;
  uint32_t rkey = 0;
  uint32_t length = 0;
};

// Writes the header into out[0, 16). kBufferTooSmall if out is shorter.
wire::Result<std::size_t> encode_rpc_header(const RpcHeader& header, std::span<std::byte> out);
// kTruncated if `in` is shorter than 16 bytes; kFieldOutOfRange for another magic, an unknown
// kind, a status in a request, a status a response may not carry, or reserved bits set.
wire::Result<RpcHeader> decode_rpc_header(std::span<const std::byte> in);

wire::Result<std::size_t> encode_rpc_read_descriptor(const RpcReadDescriptor& descriptor,
                                                     std::span<std::byte> out);
// kTruncated if `in` is shorter than 16 bytes; kFieldOutOfRange for a length of 0.
wire::Result<RpcReadDescriptor> decode_rpc_read_descriptor(std::span<const std::byte> in);

}  // namespace bifrost::transport
