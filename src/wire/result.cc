#include "bifrost/wire/result.h"

namespace bifrost::wire {

std::string_view describe(WireError error) {
  switch (error) {
    case WireError::kOk:
      return "ok";
    case WireError::kBufferTooSmall:
      return "output buffer too small";
    case WireError::kFieldOutOfRange:
      return "header field out of range for its wire width";
    case WireError::kPacketTooLarge:
      return "packet larger than an IPv4 datagram allows";
    case WireError::kTruncated:
      return "truncated: input ends inside a header";
    case WireError::kUnsupportedOpcode:
      return "unsupported BTH opcode";
    case WireError::kBadTransportVersion:
      return "unsupported BTH transport version (TVer is not 0)";
    case WireError::kPayloadNotAllowed:
      return "payload on an opcode that carries none";
    case WireError::kMisaligned:
      return "transport packet length is not a multiple of 4 bytes";
    case WireError::kBadPad:
      return "pad count exceeds the bytes after the headers";
    case WireError::kIcrcMismatch:
      return "ICRC mismatch";
    case WireError::kNotIpv4:
      return "EtherType is not IPv4";
    case WireError::kIpVersion:
      return "IP version is not 4";
    case WireError::kIpOptions:
      return "IPv4 options are not supported";
    case WireError::kIpFragment:
      return "IPv4 fragments are not supported";
    case WireError::kIpBadLength:
      return "IPv4 header or total length too short";
    case WireError::kIpChecksum:
      return "IPv4 header checksum mismatch";
    case WireError::kNotUdp:
      return "IP protocol is not UDP";
    case WireError::kUdpBadLength:
      return "UDP length disagrees with the IPv4 total length";
    case WireError::kUdpChecksum:
      return "UDP checksum mismatch";
    case WireError::kNotRoceV2Port:
      return "UDP destination port is not 4791 (RoCEv2)";
  }
  return "unknown wire error";
}

}  // namespace bifrost::wire
