#include "bifrost/wire/ip_udp.h"

#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "samples.h"
#include "test_util.h"

namespace bifrost::wire {
namespace {

using test::Fields;

// An IPv4/UDP packet whose UDP payload is `payload_size` pattern bytes, checksums filled.
std::vector<std::byte> packet(const IpUdpInfo& info, std::size_t payload_size) {
  std::vector<std::byte> bytes(kIpUdpHeaderSize + payload_size);
  const auto written = encode_ip_udp(info, payload_size, bytes);
  EXPECT_TRUE(written.ok()) << describe(written.error);
  const auto payload = test::pattern(payload_size);
  std::copy(payload.begin(), payload.end(), bytes.begin() + kIpUdpHeaderSize);
  fill_udp_checksum(bytes);
  return bytes;
}

void refresh_ip_checksum(std::vector<std::byte>& bytes) {
  bytes[10] = bytes[11] = std::byte{0};
  const uint16_t sum = fold_checksum(ones_complement_sum(std::span(bytes).first(20)));
  bytes[10] = static_cast<std::byte>(sum >> 8);
  bytes[11] = static_cast<std::byte>(sum & 0xFF);
}

TEST(WireIpUdp, RoundTripsWithEdgeValues) {
  for (const Fields fields : {Fields::kTypical, Fields::kAllZero, Fields::kAllOnes}) {
    const IpUdpInfo info = test::sample_ip(fields);
    for (const std::size_t size : {0, 1, 17, 1000}) {
      const auto bytes = packet(info, size);
      const auto view = decode_ip_udp(bytes);
      ASSERT_TRUE(view.ok()) << describe(view.error);
      EXPECT_EQ(view.value.info, info);
      EXPECT_EQ(view.value.udp_payload.size(), size);
      EXPECT_EQ(view.value.headers.size(), kIpUdpHeaderSize);
    }
  }
}

TEST(WireIpUdp, HeaderLayoutAndChecksumsMatchAPublishedPacket) {
  // The UC SEND packet of Scapy's RoCE regression test: 192.168.0.7 to itself, TOS 1, id 1144,
  // DF, TTL 64, 36 bytes of UDP payload; Scapy reports IP checksum 0xb4d5, UDP checksum 0xaca2.
  const IpUdpInfo info{0xC0A80007, 0xC0A80007, 49152, 4791, 0, 1, 64, 1144};
  std::vector<std::byte> bytes(kIpUdpHeaderSize + 36);
  ASSERT_TRUE(encode_ip_udp(info, 36, bytes).ok());
  EXPECT_EQ(std::vector<std::byte>(bytes.begin(), bytes.begin() + 28),
            test::hex_bytes("45 01 00 40 04 78 40 00 40 11 b4 d5 c0 a8 00 07 c0 a8 00 07"
                            "c0 00 12 b7 00 2c 00 00"));
  const auto rest = test::hex_bytes(
      "24 60 ff ff 00 00 00 d3 00 cf 17 10"
      "46 30 81 8b e2 89 35 d9 0e 9a 95 50 54 01 be 88 5e 50 00 00"
      "78 f3 53 f3");
  std::copy(rest.begin(), rest.end(), bytes.begin() + 28);
  fill_udp_checksum(bytes);
  EXPECT_EQ(bytes[26], std::byte{0xac});
  EXPECT_EQ(bytes[27], std::byte{0xa2});
  EXPECT_TRUE(decode_ip_udp(bytes).ok());
}

TEST(WireIpUdp, TrailingEthernetPaddingIsIgnored) {
  auto bytes = packet(test::sample_ip(), 12);
  bytes.resize(bytes.size() + 6, std::byte{0});
  const auto view = decode_ip_udp(bytes);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view.value.udp_payload.size(), 12u);
}

TEST(WireIpUdp, ZeroUdpChecksumIsAccepted) {
  auto bytes = packet(test::sample_ip(), 12);
  bytes[26] = bytes[27] = std::byte{0};
  EXPECT_TRUE(decode_ip_udp(bytes).ok());
}

TEST(WireIpUdp, MalformedHeadersAreRejected) {
  struct Case {
    const char* what;
    std::function<void(std::vector<std::byte>&)> mutate;
    WireError expected;
  };
  const std::vector<Case> cases = {
      {"IPv6 version", [](auto& b) { b[0] = std::byte{0x65}; }, WireError::kIpVersion},
      {"IHL 4", [](auto& b) { b[0] = std::byte{0x44}; }, WireError::kIpBadLength},
      {"options", [](auto& b) { b[0] = std::byte{0x46}; }, WireError::kIpOptions},
      {"more fragments", [](auto& b) { b[6] = std::byte{0x20}; }, WireError::kIpFragment},
      {"fragment offset", [](auto& b) { b[7] = std::byte{0x01}; }, WireError::kIpFragment},
      {"TCP", [](auto& b) { b[9] = std::byte{6}; }, WireError::kNotUdp},
      {"total length short",
       [](auto& b) {
         b[2] = std::byte{0};
         b[3] = std::byte{27};
       },
       WireError::kIpBadLength},
      {"total length long", [](auto& b) { b[3] = static_cast<std::byte>(b.size() + 1); },
       WireError::kTruncated},
      {"UDP length", [](auto& b) { b[25] ^= std::byte{4}; }, WireError::kUdpBadLength},
      {"UDP port", [](auto& b) { b[23] = std::byte{0xB8}; }, WireError::kNotRoceV2Port},
  };
  for (const Case& c : cases) {
    auto bytes = packet(test::sample_ip(), 20);
    c.mutate(bytes);
    refresh_ip_checksum(bytes);
    EXPECT_EQ(decode_ip_udp(bytes).error, c.expected) << c.what;
  }

  auto bytes = packet(test::sample_ip(), 20);
  bytes[12] ^= std::byte{1};  // source address, checksum left stale
  EXPECT_EQ(decode_ip_udp(bytes).error, WireError::kIpChecksum);

  bytes = packet(test::sample_ip(), 20);
  bytes[40] ^= std::byte{1};  // UDP payload, UDP checksum left stale
  EXPECT_EQ(decode_ip_udp(bytes).error, WireError::kUdpChecksum);

  bytes = packet(test::sample_ip(), 20);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    const std::vector<std::byte> cut(bytes.begin(), bytes.begin() + n);
    EXPECT_FALSE(decode_ip_udp(cut).ok()) << n;
  }
}

TEST(WireIpUdp, EncodeChecksRangesAndSizes) {
  std::vector<std::byte> out(kIpUdpHeaderSize);
  IpUdpInfo info = test::sample_ip();
  info.ecn = 4;
  EXPECT_EQ(encode_ip_udp(info, 0, out).error, WireError::kFieldOutOfRange);
  info = test::sample_ip();
  EXPECT_EQ(encode_ip_udp(info, 0xFFFF - 27, out).error, WireError::kPacketTooLarge);
  EXPECT_TRUE(encode_ip_udp(info, 0xFFFF - 28, out).ok());
  std::vector<std::byte> small(kIpUdpHeaderSize - 1);
  EXPECT_EQ(encode_ip_udp(info, 0, small).error, WireError::kBufferTooSmall);
}

TEST(WireIpUdp, UdpChecksumNeverEncodesAsZero) {
  // Search for a payload whose checksum computes to 0; it must be sent as 0xFFFF.
  for (uint32_t v = 0; v < 0x10000; ++v) {
    auto bytes = packet(test::sample_ip(), 2);
    bytes[28] = static_cast<std::byte>(v >> 8);
    bytes[29] = static_cast<std::byte>(v & 0xFF);
    fill_udp_checksum(bytes);
    if (bytes[26] == std::byte{0xFF} && bytes[27] == std::byte{0xFF}) {
      EXPECT_TRUE(decode_ip_udp(bytes).ok());
      return;
    }
    ASSERT_FALSE(bytes[26] == std::byte{0} && bytes[27] == std::byte{0});
  }
  FAIL() << "no payload produced the all-ones checksum";
}

}  // namespace
}  // namespace bifrost::wire
