#pragma once
// The outcome of an encode or decode: a value or the reason it failed. Codec functions never
// throw and never allocate; a malformed packet is an ordinary result to count and drop.
#include <cstdint>
#include <string_view>

namespace bifrost::wire {

enum class WireError : uint8_t {
  kOk,
  // Encoding.
  kBufferTooSmall,   // the output span cannot hold the packet
  kFieldOutOfRange,  // a header field does not fit its wire width (e.g. a 25-bit PSN)
  kPacketTooLarge,   // the IPv4 total length would exceed 65535
  // Transport headers (BTH through ICRC).
  kTruncated,            // the input ends inside a header
  kUnsupportedOpcode,    // reserved, RD, atomic or vendor opcode
  kBadTransportVersion,  // BTH TVer is not 0
  kPayloadNotAllowed,    // payload bytes on an opcode that carries none
  kMisaligned,           // BTH through ICRC is not a multiple of 4 bytes
  kBadPad,               // pad count larger than the bytes after the headers
  kIcrcMismatch,         // the invariant CRC does not match the packet
  // Ethernet, IPv4 and UDP.
  kNotIpv4,        // EtherType is not IPv4
  kIpVersion,      // IP version field is not 4
  kIpOptions,      // IPv4 header carries options (IHL > 5)
  kIpFragment,     // more-fragments flag or a fragment offset
  kIpBadLength,    // IHL < 5 or total length shorter than IPv4 + UDP headers
  kIpChecksum,     // IPv4 header checksum does not verify
  kNotUdp,         // IP protocol is not UDP
  kUdpBadLength,   // UDP length disagrees with the IP total length
  kUdpChecksum,    // non-zero UDP checksum does not verify
  kNotRoceV2Port,  // UDP destination port is not 4791
};

// One line for logs and tables, e.g. "ICRC mismatch".
std::string_view describe(WireError error);

template <typename T>
struct [[nodiscard]] Result {
  T value{};
  WireError error = WireError::kOk;

  constexpr bool ok() const { return error == WireError::kOk; }
  constexpr explicit operator bool() const { return ok(); }
};

template <typename T>
constexpr Result<T> fail(WireError error) {
  return Result<T>{T{}, error};
}

}  // namespace bifrost::wire
