#pragma once
// The header bifrost puts at the start of every SEND on a data QP (32 bytes, network order).
// SENDs carry small messages, the WRITE exchange (request and grant) and the retransmitted
// pieces of lost WRITE chunks; every one of them is a WQE of the SEND reliable space.
//
//   0  u8  type           (SendType)
//   1  u8  flags          bit 0: hint (the last WQE the sender's window allows: ACK at once)
//   2  u16 reserved       (0)
//   4  u32 send_number    the SEND reliable number (a retransmitted SEND keeps it)
//   8  u64 global         the global sequence number of this WQE (new on every transmission)
//  16  u32 message_id     WRITE reliable number (request, grant, retransmitted piece)
//  20  u32 argument       request: message length; grant: rkey; piece: unit index
//  24  u64 address        grant: where the message goes; otherwise 0
#include <cstddef>
#include <cstdint>
#include <span>

#include "bifrost/wire/result.h"

namespace bifrost::transport {

enum class SendType : uint8_t {
  message = 1,        // a whole small message follows the header
  write_request = 2,  // "I have message_id of `argument` bytes for you"
  write_grant = 3,    // "write message_id at address with rkey argument"
  write_piece = 4,    // one unit of a lost WRITE chunk follows the header
};

struct SendHeader {
  SendType type = SendType::message;
  bool hint = false;
  uint32_t send_number = 0;
  uint64_t global = 0;
  uint32_t message_id = 0;
  uint32_t argument = 0;
  uint64_t address = 0;
};

inline constexpr std::size_t kSendHeaderSize = 32;

// Writes the header into out[0, 32). Returns kBufferTooSmall if out is shorter.
wire::Result<std::size_t> encode_send_header(const SendHeader& header, std::span<std::byte> out);
// Reads a header from the start of `in`: kTruncated if it is shorter than 32 bytes,
// kFieldOutOfRange for an unknown type, unknown flags or non-zero reserved bits.
wire::Result<SendHeader> decode_send_header(std::span<const std::byte> in);

}  // namespace bifrost::transport
