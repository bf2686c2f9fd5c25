#include "bifrost/wire/ip_udp.h"

#include "bifrost/wire/byte_order.h"

namespace bifrost::wire {
namespace {

using detail::load_be16;
using detail::load_be32;
using detail::store_be16;
using detail::store_be32;

constexpr uint16_t kFlagDontFragment = 0x4000;
constexpr uint16_t kFlagMoreFragments = 0x2000;
constexpr uint16_t kFragmentOffsetMask = 0x1FFF;

// Sum of the UDP pseudo header (RFC 768): addresses, protocol and UDP length.
uint32_t pseudo_header_sum(std::span<const std::byte> ip_header, uint16_t udp_length) {
  uint32_t sum = ones_complement_sum(ip_header.subspan(12, 8));
  return sum + kIpProtocolUdp + udp_length;
}

}  // namespace

uint32_t ones_complement_sum(std::span<const std::byte> data, uint32_t sum) {
  // 64-bit accumulation defers the end-around carries to one fold at the end.
  uint64_t acc = sum;
  const std::byte* p = data.data();
  std::size_t n = data.size();
  for (; n >= 4; p += 4, n -= 4) acc += load_be32(p);
  if (n >= 2) {
    acc += load_be16(p);
    p += 2;
    n -= 2;
  }
  if (n == 1) acc += uint32_t{static_cast<uint8_t>(*p)} << 8;
  while (acc >> 16) acc = (acc & 0xFFFF) + (acc >> 16);
  return static_cast<uint32_t>(acc);
}

uint16_t fold_checksum(uint32_t sum) {
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<uint16_t>(~sum & 0xFFFF);
}

Result<std::size_t> encode_ip_udp(const IpUdpInfo& info, std::size_t udp_payload_size,
                                  std::span<std::byte> out) {
  if (info.dscp > 63 || info.ecn > 3) return fail<std::size_t>(WireError::kFieldOutOfRange);
  if (udp_payload_size > 0xFFFF - kIpUdpHeaderSize) {
    return fail<std::size_t>(WireError::kPacketTooLarge);
  }
  if (out.size() < kIpUdpHeaderSize) return fail<std::size_t>(WireError::kBufferTooSmall);
  std::byte* ip = out.data();
  const auto total = static_cast<uint32_t>(kIpUdpHeaderSize + udp_payload_size);
  ip[0] = std::byte{0x45};  // version 4, IHL 5
  ip[1] = static_cast<std::byte>((info.dscp << 2) | info.ecn);
  store_be16(ip + 2, total);
  store_be16(ip + 4, info.ip_id);
  store_be16(ip + 6, kFlagDontFragment);
  ip[8] = static_cast<std::byte>(info.ttl);
  ip[9] = static_cast<std::byte>(kIpProtocolUdp);
  store_be16(ip + 10, 0);
  store_be32(ip + 12, info.src_ip);
  store_be32(ip + 16, info.dst_ip);
  store_be16(ip + 10, fold_checksum(ones_complement_sum(out.first(kIpv4HeaderSize))));

  std::byte* udp = ip + kIpv4HeaderSize;
  store_be16(udp, info.src_port);
  store_be16(udp + 2, info.dst_port);
  store_be16(udp + 4, total - kIpv4HeaderSize);
  store_be16(udp + 6, 0);
  return {kIpUdpHeaderSize};
}

void fill_udp_checksum(std::span<std::byte> ip_packet) {
  if (ip_packet.size() < kIpUdpHeaderSize) return;
  const uint16_t udp_length = load_be16(ip_packet.data() + kIpv4HeaderSize + 4);
  if (udp_length < kUdpHeaderSize || ip_packet.size() < kIpv4HeaderSize + udp_length) return;
  auto udp = ip_packet.subspan(kIpv4HeaderSize, udp_length);
  store_be16(udp.data() + 6, 0);
  uint16_t checksum =
      fold_checksum(ones_complement_sum(udp, pseudo_header_sum(ip_packet, udp_length)));
  if (checksum == 0) checksum = 0xFFFF;  // zero on the wire means "no checksum"
  store_be16(udp.data() + 6, checksum);
}

Result<IpUdpView> decode_ip_udp(std::span<const std::byte> ip_packet) {
  using R = IpUdpView;
  if (ip_packet.size() < kIpv4HeaderSize) return fail<R>(WireError::kTruncated);
  const std::byte* ip = ip_packet.data();
  const auto first = static_cast<uint8_t>(ip[0]);
  if ((first >> 4) != 4) return fail<R>(WireError::kIpVersion);
  const unsigned ihl = first & 0x0F;
  if (ihl < 5) return fail<R>(WireError::kIpBadLength);
  if (ihl > 5) return fail<R>(WireError::kIpOptions);
  const uint16_t total = load_be16(ip + 2);
  if (total < kIpUdpHeaderSize) return fail<R>(WireError::kIpBadLength);
  if (total > ip_packet.size()) return fail<R>(WireError::kTruncated);
  const uint16_t flags = load_be16(ip + 6);
  if ((flags & kFlagMoreFragments) || (flags & kFragmentOffsetMask)) {
    return fail<R>(WireError::kIpFragment);
  }
  if (fold_checksum(ones_complement_sum(ip_packet.first(kIpv4HeaderSize))) != 0) {
    return fail<R>(WireError::kIpChecksum);
  }
  if (static_cast<uint8_t>(ip[9]) != kIpProtocolUdp) return fail<R>(WireError::kNotUdp);

  const std::byte* udp = ip + kIpv4HeaderSize;
  const uint16_t udp_length = load_be16(udp + 4);
  if (udp_length != total - kIpv4HeaderSize) return fail<R>(WireError::kUdpBadLength);
  IpUdpView view;
  view.info.src_ip = load_be32(ip + 12);
  view.info.dst_ip = load_be32(ip + 16);
  view.info.src_port = load_be16(udp);
  view.info.dst_port = load_be16(udp + 2);
  view.info.dscp = static_cast<uint8_t>(ip[1]) >> 2;
  view.info.ecn = static_cast<uint8_t>(ip[1]) & 0x3;
  view.info.ttl = static_cast<uint8_t>(ip[8]);
  view.info.ip_id = load_be16(ip + 4);
  if (view.info.dst_port != kRoceV2UdpPort) return fail<R>(WireError::kNotRoceV2Port);

  const auto segment = ip_packet.subspan(kIpv4HeaderSize, udp_length);
  if (load_be16(udp + 6) != 0) {
    // A valid checksum makes the sum over pseudo header and segment fold to zero.
    const uint32_t sum = ones_complement_sum(segment, pseudo_header_sum(ip_packet, udp_length));
    if (fold_checksum(sum) != 0) return fail<R>(WireError::kUdpChecksum);
  }
  view.headers = ip_packet.first(kIpUdpHeaderSize);
  view.udp_payload = segment.subspan(kUdpHeaderSize);
  return {view};
}

}  // namespace bifrost::wire
