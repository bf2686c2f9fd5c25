#pragma once
// Whole RoCEv2 packets: IPv4/UDP/RoCE (what a raw socket or an RNIC sees) and the Ethernet
// frame around it (what a pcap file holds). Decoding checks every checksum including the ICRC.
#include <cstddef>
#include <span>

#include "bifrost/wire/codec.h"
#include "bifrost/wire/ethernet.h"
#include "bifrost/wire/ip_udp.h"

namespace bifrost::wire {

// RNICs send a zero UDP checksum (RoCEv2 relies on the ICRC); captures for people to read
// are clearer with a real one.
enum class UdpChecksum : uint8_t { kZero, kCompute };

inline std::size_t ipv4_packet_size(Opcode op, std::size_t payload_size) {
  return kIpUdpHeaderSize + udp_payload_size(op, payload_size);
}
inline std::size_t ethernet_frame_size(Opcode op, std::size_t payload_size) {
  return kEthernetHeaderSize + ipv4_packet_size(op, payload_size);
}

// The bytes a link and a rate limiter charge for a packet with these headers: the SR extension
// adds its bytes when present, its lean size when headers.sr.lean (a size model: the encoded
// frame always carries the full 24 bytes, udp_payload_size).
inline std::size_t ethernet_frame_size(const RoceHeaders& headers, std::size_t payload_size) {
  return ethernet_frame_size(headers.bth.opcode, payload_size) + sr_extension_size(headers);
}

struct Ipv4View {
  IpUdpInfo ip;
  RoceView roce;
};

struct FrameView {
  EthernetHeader eth;
  IpUdpInfo ip;
  RoceView roce;
};

Result<std::size_t> encode_ipv4_packet(const IpUdpInfo& ip, const RoceHeaders& headers,
                                       std::span<const std::byte> payload, std::span<std::byte> out,
                                       UdpChecksum udp_checksum = UdpChecksum::kCompute);
Result<std::size_t> encode_ethernet_frame(const EthernetHeader& eth, const IpUdpInfo& ip,
                                          const RoceHeaders& headers,
                                          std::span<const std::byte> payload,
                                          std::span<std::byte> out,
                                          UdpChecksum udp_checksum = UdpChecksum::kCompute);

Result<Ipv4View> decode_ipv4_packet(std::span<const std::byte> packet);
// Only IPv4 frames are accepted (no VLAN tags).
Result<FrameView> decode_ethernet_frame(std::span<const std::byte> frame);

}  // namespace bifrost::wire
