#include "bifrost/wire/icrc.h"

#include <gtest/gtest.h>

#include <array>
#include <random>
#include <string_view>
#include <vector>

#include "samples.h"
#include "test_util.h"

namespace bifrost::wire {
namespace {

// Bit-at-a-time CRC-32 straight from the definition, to check the table-driven one.
uint32_t reference_crc32(std::span<const std::byte> data, uint32_t previous = 0) {
  uint32_t crc = ~previous;
  for (std::byte b : data) {
    crc ^= static_cast<uint8_t>(b);
    for (int i = 0; i < 8; ++i) crc = (crc & 1) ? (crc >> 1) ^ 0xEDB88320 : crc >> 1;
  }
  return ~crc;
}

std::span<const std::byte> as_bytes(std::string_view text) {
  return std::as_bytes(std::span<const char>(text.data(), text.size()));
}

TEST(WireIcrc, Crc32CheckValue) {
  // The catalogue check value of CRC-32/ISO-HDLC (the IEEE 802.3 CRC).
  EXPECT_EQ(crc32_ieee(as_bytes("123456789")), 0xCBF43926u);
  EXPECT_EQ(crc32_ieee({}), 0u);
}

TEST(WireIcrc, TableDrivenMatchesBitwiseAtEveryLengthAndSplit) {
  const auto data = test::pattern(300, 7);
  for (std::size_t n = 0; n <= data.size(); n += (n < 40 ? 1 : 37)) {
    const auto part = std::span<const std::byte>(data).first(n);
    ASSERT_EQ(crc32_ieee(part), reference_crc32(part)) << n;
    for (std::size_t split : {std::size_t{0}, n / 3, n}) {
      EXPECT_EQ(crc32_ieee(part.subspan(split), crc32_ieee(part.first(split))),
                reference_crc32(part))
          << n << " split " << split;
    }
  }
}

// Lengths from 64 bytes on take the carry-less-multiplication path where the CPU has it:
// every length up to 600 (each lane count, each tail), jumbo lengths, and unaligned starts.
TEST(WireIcrc, FoldingPathMatchesBitwiseAtEveryLengthAndAlignment) {
  const auto data = test::pattern(70000, 11);
  const auto all = std::span<const std::byte>(data);
  for (std::size_t n = 0; n <= 600; ++n) {
    ASSERT_EQ(crc32_ieee(all.subspan(3, n)), reference_crc32(all.subspan(3, n))) << n;
  }
  for (const std::size_t n : {4096, 4096 + 13, 4138, 9000, 65536}) {
    for (const std::size_t offset : {0, 1, 7, 15}) {
      const auto part = all.subspan(offset, n);
      ASSERT_EQ(crc32_ieee(part), reference_crc32(part)) << n << " at " << offset;
      EXPECT_EQ(crc32_ieee(part.subspan(n / 2), crc32_ieee(part.first(n / 2))),
                reference_crc32(part))
          << n << " split in half at " << offset;
    }
  }
}

// Random bytes, random starting offsets and random running values, at every length up to 1100
// (the table code below 64 bytes, the 128-bit folding below 128, the 256-bit folding from
// there, each with every 32- and 16-byte remainder and byte tail) and a few large ones.
TEST(WireIcrc, EveryDispatchPathMatchesBitwiseOnRandomData) {
  std::mt19937 rng(20240611);
  std::vector<std::byte> data(65536 + 7 + 32);
  for (auto& b : data) b = static_cast<std::byte>(rng());
  const auto all = std::span<const std::byte>(data);
  std::vector<std::size_t> lengths(1101);
  for (std::size_t n = 0; n < lengths.size(); ++n) lengths[n] = n;
  lengths.insert(lengths.end(), {4096, 4096 + 13, 65536 + 7});
  for (const std::size_t n : lengths) {
    const auto part = all.subspan(rng() % 32, n);
    const uint32_t previous = static_cast<uint32_t>(rng());
    ASSERT_EQ(crc32_ieee(part, previous), reference_crc32(part, previous)) << n;
  }
}

TEST(WireIcrc, WireOrderIsLeastSignificantByteFirst) {
  std::array<std::byte, 4> out{};
  store_icrc(0x2A00FD82, out);
  EXPECT_EQ(std::vector<std::byte>(out.begin(), out.end()), test::hex_bytes("82 fd 00 2a"));
  EXPECT_EQ(load_icrc(out), 0x2A00FD82u);
}

// A RoCEv2 CNP captured from a ConnectX-4 Lx NIC (published as a regression vector in Scapy's
// RoCE tests). It pins both the ICRC masking and the wire byte order to real hardware; the
// codec's own decoding of it is checked in frame_test.cc.
TEST(WireIcrc, MatchesHardwareCapturedCnp) {
  const auto frame = test::hex_bytes(
      "e41d 2dab 2bc2 7cfe 9064 3b32 0800 45c2"
      "003c 718c 4000 4011 9161 0a00 1101 0a00"
      "1201 0000 12b7 0028 0000 8100 ffff 4000"
      "0118 0000 0000 0000 0000 0000 0000 0000"
      "0000 0000 0000 82fd 002a");
  const auto bytes = std::span<const std::byte>(frame);
  const auto ip = bytes.subspan<14, 20>();
  const auto udp = bytes.subspan<34, 8>();
  const auto transport = bytes.subspan(42, bytes.size() - 42 - kIcrcSize);
  const uint32_t icrc = icrc_ipv4(ip, udp, transport);
  EXPECT_EQ(icrc, 0x2A00FD82u);
  EXPECT_EQ(icrc, load_icrc(bytes.last<4>()));
}

TEST(WireIcrc, Ipv4MaskingMatchesAnExplicitMaskedBuffer) {
  auto packet = test::pattern(20 + 8 + 12 + 40, 3);
  packet[0] = std::byte{0x45};
  std::vector<std::byte> masked = packet;
  masked[1] = masked[8] = masked[10] = masked[11] = std::byte{0xFF};  // TOS, TTL, checksum
  masked[26] = masked[27] = std::byte{0xFF};                          // UDP checksum
  masked[28 + 4] = std::byte{0xFF};                                   // BTH byte 4
  masked.insert(masked.begin(), 8, std::byte{0xFF});                  // LRH stand-in
  const auto p = std::span<const std::byte>(packet);
  EXPECT_EQ(icrc_ipv4(p.first<20>(), p.subspan<20, 8>(), p.subspan(28)), reference_crc32(masked));
}

TEST(WireIcrc, Ipv4CoversEveryByteButTheVariantFields) {
  auto packet = test::pattern(20 + 8 + 12 + 16 + 4, 5);
  packet[0] = std::byte{0x45};
  const auto icrc = [&packet] {
    const auto p = std::span<const std::byte>(packet);
    return icrc_ipv4(p.first<20>(), p.subspan<20, 8>(), p.subspan(28));
  };
  const uint32_t base = icrc();
  for (std::size_t i = 0; i < packet.size(); ++i) {
    const bool variant = i == 1 || i == 8 || i == 10 || i == 11 || i == 26 || i == 27 || i == 32;
    packet[i] ^= std::byte{0x5A};
    EXPECT_EQ(icrc() == base, variant) << "byte " << i;
    packet[i] ^= std::byte{0x5A};
  }
}

TEST(WireIcrc, Ipv6MasksTrafficClassFlowLabelAndHopLimit) {
  auto packet = test::pattern(40 + 8 + 12 + 8, 9);
  packet[0] = std::byte{0x60};
  std::vector<std::byte> masked = packet;
  masked[0] = std::byte{0x6F};
  masked[1] = masked[2] = masked[3] = std::byte{0xFF};
  masked[7] = std::byte{0xFF};
  masked[46] = masked[47] = std::byte{0xFF};
  masked[48 + 4] = std::byte{0xFF};
  masked.insert(masked.begin(), 8, std::byte{0xFF});
  const auto icrc = [&packet] {
    const auto p = std::span<const std::byte>(packet);
    return icrc_ipv6(p.first<40>(), p.subspan<40, 8>(), p.subspan(48));
  };
  EXPECT_EQ(icrc(), reference_crc32(masked));
  const uint32_t base = icrc();
  for (std::size_t i = 0; i < packet.size(); ++i) {
    // Bit 0 of byte 0 belongs to the traffic class; the version nibble is tested below.
    const bool variant = i <= 3 || i == 7 || i == 46 || i == 47 || i == 52;
    packet[i] ^= std::byte{0x01};
    EXPECT_EQ(icrc() == base, variant) << "byte " << i;
    packet[i] ^= std::byte{0x01};
  }
  packet[0] ^= std::byte{0x0F};  // the traffic class's high nibble shares byte 0
  EXPECT_EQ(icrc(), base);
  packet[0] ^= std::byte{0x0F};
  packet[0] ^= std::byte{0x10};  // the version nibble is covered
  EXPECT_NE(icrc(), base);
}

}  // namespace
}  // namespace bifrost::wire
