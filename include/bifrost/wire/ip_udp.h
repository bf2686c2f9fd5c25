#pragma once
// The outer IPv4 and UDP headers of a RoCEv2 packet. IPv4 is emitted without options and with
// the don't-fragment flag; options and fragments are rejected on decode, as RNICs do.
#include <cstddef>
#include <cstdint>
#include <span>

#include "bifrost/wire/headers.h"
#include "bifrost/wire/result.h"

namespace bifrost::wire {

inline constexpr std::size_t kIpv4HeaderSize = 20;
inline constexpr std::size_t kUdpHeaderSize = 8;
inline constexpr std::size_t kIpUdpHeaderSize = kIpv4HeaderSize + kUdpHeaderSize;
inline constexpr uint8_t kIpProtocolUdp = 17;

// What the outer headers say, in host order. The ICRC covers every field here except DSCP,
// ECN and TTL, so a sender must know the IP id it will put on the wire.
struct IpUdpInfo {
  uint32_t src_ip = 0;  // 10.0.0.1 is 0x0A000001
  uint32_t dst_ip = 0;
  uint16_t src_port = 0;
  uint16_t dst_port = kRoceV2UdpPort;
  uint8_t dscp = 0;  // 6 bits
  uint8_t ecn = 0;   // 2 bits: 0 not-ECT, 1/2 ECT, 3 CE
  uint8_t ttl = 64;
  uint16_t ip_id = 0;
  bool operator==(const IpUdpInfo&) const = default;
};

// Writes the IPv4 header (checksum filled) and the UDP header for `udp_payload_size` bytes of
// UDP payload; returns kIpUdpHeaderSize. The UDP checksum is left zero: call
// fill_udp_checksum once the payload is in place.
Result<std::size_t> encode_ip_udp(const IpUdpInfo& info, std::size_t udp_payload_size,
                                  std::span<std::byte> out);

// Computes and stores the UDP checksum of a complete IPv4 packet that encode_ip_udp started.
// Does nothing if the span is shorter than the lengths its headers state.
void fill_udp_checksum(std::span<std::byte> ip_packet);

// RFC 1071 ones'-complement sum of `data` added to `sum`, folded to 16 bits, not complemented.
uint32_t ones_complement_sum(std::span<const std::byte> data, uint32_t sum = 0);
// Folds and complements a ones'-complement sum into a checksum field value.
uint16_t fold_checksum(uint32_t sum);

struct IpUdpView {
  IpUdpInfo info;
  std::span<const std::byte> headers;      // the IPv4 and UDP headers, kIpUdpHeaderSize bytes
  std::span<const std::byte> udp_payload;  // as long as the UDP length says
};

// Parses and checks the IPv4 and UDP headers of `ip_packet`: version 4, no options, not a
// fragment, valid header checksum, protocol UDP, consistent lengths, destination port 4791 and a
// valid UDP checksum unless it is zero (RoCEv2 senders may leave it zero). Bytes after the IPv4
// total length (Ethernet padding) are ignored.
Result<IpUdpView> decode_ip_udp(std::span<const std::byte> ip_packet);

}  // namespace bifrost::wire
