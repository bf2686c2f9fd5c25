#pragma once
// Ethernet II framing, used for pcap files (the real world sends UDP datagrams instead).
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "bifrost/wire/result.h"

namespace bifrost::wire {

using MacAddress = std::array<uint8_t, 6>;

inline constexpr std::size_t kEthernetHeaderSize = 14;
inline constexpr uint16_t kEtherTypeIpv4 = 0x0800;

struct EthernetHeader {
  MacAddress dst{};
  MacAddress src{};
  uint16_t ethertype = kEtherTypeIpv4;
  bool operator==(const EthernetHeader&) const = default;
};

// Writes the 14-byte header; returns its size.
Result<std::size_t> encode_ethernet_header(const EthernetHeader& eth, std::span<std::byte> out);
// Reads the 14-byte header; any EtherType is accepted here.
Result<EthernetHeader> decode_ethernet_header(std::span<const std::byte> in);

}  // namespace bifrost::wire
