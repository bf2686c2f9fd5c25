#pragma once
// CRC-32 and the RoCEv2 invariant CRC (ICRC, IBTA Vol. 1 annex A17).
//
// The ICRC is the IEEE 802.3 CRC-32 (reflected polynomial 0xEDB88320, initial value
// 0xFFFFFFFF, final complement) over: 8 bytes of 0xFF standing in for the InfiniBand LRH, the
// IP header with its variant fields set to ones (IPv4: TOS, TTL, header checksum; IPv6: traffic
// class, flow label, hop limit), the UDP header with its checksum set to ones, the BTH with
// byte 4 (FECN, BECN, reserved) set to ones, then the remaining headers, payload and pad.
//
// Wire byte order: the CRC value is written least significant byte first, the same order
// Ethernet uses for its FCS. A CRC of 0x2A00FD82 appears on the wire as 82 FD 00 2A. Hardware
// RNICs (e.g. a ConnectX-4 Lx capture) and the Linux soft RoCE driver agree on this order.
#include <cstddef>
#include <cstdint>
#include <span>

namespace bifrost::wire {

inline constexpr std::size_t kIcrcSize = 4;

// CRC-32 as IEEE 802.3 and zlib's crc32() define it. Pass the previous result to continue a
// running CRC: crc32_ieee(b, crc32_ieee(a)) == crc32_ieee(a followed by b).
uint32_t crc32_ieee(std::span<const std::byte> data, uint32_t previous = 0);

// ICRC of a RoCEv2 packet over IPv4. `transport` is BTH through pad, without the ICRC field,
// or its first piece (BTH included) when the packet is sent from several buffers: `more` are
// the pieces that follow, in order. The header spans hold the headers as sent; masking happens
// on a private copy.
uint32_t icrc_ipv4(std::span<const std::byte, 20> ip_header,
                   std::span<const std::byte, 8> udp_header, std::span<const std::byte> transport,
                   std::span<const std::span<const std::byte>> more = {});
// The same over an IPv6 header (no extension headers).
uint32_t icrc_ipv6(std::span<const std::byte, 40> ip_header,
                   std::span<const std::byte, 8> udp_header, std::span<const std::byte> transport);

// The ICRC field in wire order (least significant byte first).
void store_icrc(uint32_t icrc, std::span<std::byte, kIcrcSize> out);
uint32_t load_icrc(std::span<const std::byte, kIcrcSize> in);

}  // namespace bifrost::wire
