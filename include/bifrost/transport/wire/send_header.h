#pragma once
// The header bifrost puts at the start of every SEND on a data QP (32 bytes, network order).
// SENDs carry small messages, the WRITE exchange (request and grant), the retransmitted
// pieces of lost WRITE chunks and the one-sided operations' notices and replies; every one of
// them is a WQE of the SEND reliable space.
//
//   0  u8  type           (SendType)
//   1  u8  flags          bit 0: hint (the last WQE the sender's window allows: ACK at once)
//   2  u16 reserved       (0)
//   4  u32 send_number    the SEND reliable number (a retransmitted SEND keeps it)
//   8  u64 global         the global sequence number of this WQE (new on every transmission)
//  16  u32 message_id     WRITE reliable number (request, grant, piece, notice, refusal);
//                         read id (read request, read done)
//  20  u32 argument       request, notice, read request: length; grant: rkey; piece: unit
//                         index; read done: ReadStatus
//  24  u64 address        grant: where the message goes; notice: the target address; read
//                         request: the source address; otherwise 0
//
// A notice and a read request carry a 16-byte OneSidedTrailer after the header:
//   0  u32 rkey           notice: the target's rkey; read request: the source's
//   4  u32 reply_rkey     read request: the rkey of the requester's destination; otherwise 0
//   8  u64 reply_address  read request: where the data goes at the requester; otherwise 0
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
  // One-sided operations (software_uc mode; docs/transport.md "One-sided WRITE and READ").
  write_notice = 5,   // "one-sided WRITE message_id of `argument` bytes goes to address/rkey"
  write_refused = 6,  // "your notice message_id names memory you may not write"
  read_request = 7,   // "write `argument` bytes from address/rkey to my reply address"
  read_done = 8,      // "read message_id finished with status `argument`"
  // A software ACK on the data QP (AckPath::data_qp): the encoded SoftAck follows the header.
  // Not a WQE of the SEND reliable space: send number, global number and the rest are 0.
  ack = 9,
};

// What a read_done reports.
enum class ReadStatus : uint32_t { ok = 0, remote_access_error = 1, failed = 2 };

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

struct OneSidedTrailer {
  uint32_t rkey = 0;
  uint32_t reply_rkey = 0;
  uint64_t reply_address = 0;
};

inline constexpr std::size_t kOneSidedTrailerSize = 16;

// Writes the header into out[0, 32). Returns kBufferTooSmall if out is shorter.
wire::Result<std::size_t> encode_send_header(const SendHeader& header, std::span<std::byte> out);
// Reads a header from the start of `in`: kTruncated if it is shorter than 32 bytes,
// kFieldOutOfRange for an unknown type, unknown flags or non-zero reserved bits.
wire::Result<SendHeader> decode_send_header(std::span<const std::byte> in);

wire::Result<std::size_t> encode_one_sided_trailer(const OneSidedTrailer& trailer,
                                                   std::span<std::byte> out);
// kTruncated if `in` is shorter than 16 bytes.
wire::Result<OneSidedTrailer> decode_one_sided_trailer(std::span<const std::byte> in);

}  // namespace bifrost::transport
