#include "bifrost/wire/frame.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "samples.h"
#include "test_util.h"

namespace bifrost::wire {
namespace {

using test::Fields;
using test::sample_headers;
using test::sample_ip;

const EthernetHeader kEth{{0x02, 0, 0, 0, 0, 0x0B}, {0x02, 0, 0, 0, 0, 0x0A}, kEtherTypeIpv4};

std::vector<std::byte> frame(const RoceHeaders& h, const std::vector<std::byte>& payload,
                             const IpUdpInfo& ip = sample_ip(),
                             UdpChecksum checksum = UdpChecksum::kCompute) {
  std::vector<std::byte> out(ethernet_frame_size(h.bth.opcode, payload.size()));
  const auto written = encode_ethernet_frame(kEth, ip, h, payload, out, checksum);
  EXPECT_TRUE(written.ok()) << describe(written.error);
  EXPECT_EQ(written.value, out.size());
  return out;
}

TEST(WireFrame, EveryOpcodeRoundTripsThroughEthernetIpv4Udp) {
  for (const Opcode op : test::supported_opcodes()) {
    for (const Fields fields : {Fields::kTypical, Fields::kAllZero, Fields::kAllOnes}) {
      const std::size_t size = header_chain(op).payload ? 33 : 0;
      SCOPED_TRACE(std::string(opcode_name(op)));
      const RoceHeaders h = sample_headers(op, fields, size);
      const auto payload = test::pattern(size);
      const IpUdpInfo ip = sample_ip(fields);
      for (const UdpChecksum checksum : {UdpChecksum::kCompute, UdpChecksum::kZero}) {
        const auto bytes = frame(h, payload, ip, checksum);
        const auto view = decode_ethernet_frame(bytes);
        ASSERT_TRUE(view.ok()) << describe(view.error);
        EXPECT_EQ(view.value.eth, kEth);
        EXPECT_EQ(view.value.ip, ip);
        EXPECT_EQ(view.value.roce.headers, h);
        EXPECT_EQ(
            std::vector<std::byte>(view.value.roce.payload.begin(), view.value.roce.payload.end()),
            payload);
        const bool zero = bytes[40] == std::byte{0} && bytes[41] == std::byte{0};
        EXPECT_EQ(zero, checksum == UdpChecksum::kZero);
      }
    }
  }
}

TEST(WireFrame, HardwareCapturedCnpDecodesAndIsReproducedByteForByte) {
  const auto captured = test::hardware_cnp_frame();
  const auto view = decode_ethernet_frame(captured);  // checks IP, UDP and ICRC too
  ASSERT_TRUE(view.ok()) << describe(view.error);
  const FrameView& v = view.value;
  EXPECT_EQ(v.ip, (IpUdpInfo{0x0A001101, 0x0A001201, 0, kRoceV2UdpPort, 48, 2, 64, 0x718C}));
  const Bth& bth = v.roce.headers.bth;
  EXPECT_EQ(bth.opcode, Opcode::kCnp);
  EXPECT_FALSE(bth.solicited);
  EXPECT_FALSE(bth.migration);
  EXPECT_EQ(bth.pad_count, 0);
  EXPECT_EQ(bth.pkey, 0xFFFF);
  EXPECT_FALSE(bth.fecn);
  EXPECT_TRUE(bth.becn);
  EXPECT_EQ(bth.dest_qp, 0x000118u);
  EXPECT_FALSE(bth.ack_request);
  EXPECT_EQ(bth.psn, 0u);
  EXPECT_TRUE(v.roce.payload.empty());
  EXPECT_EQ(v.roce.icrc, 0x2A00FD82u);
  EXPECT_EQ(v.roce.headers, make_cnp(0x000118));

  // make_cnp plus the capture's addresses gives the NIC's bytes, ICRC included.
  std::vector<std::byte> out(ethernet_frame_size(Opcode::kCnp, 0));
  const auto written =
      encode_ethernet_frame(v.eth, v.ip, make_cnp(0x000118), {}, out, UdpChecksum::kZero);
  ASSERT_TRUE(written.ok()) << describe(written.error);
  EXPECT_EQ(out, captured);
}

TEST(WireFrame, SocketAndRawEncodingsCarryTheSameIcrc) {
  const RoceHeaders h = sample_headers(Opcode::kRcWriteOnlyImm, Fields::kTypical, 21);
  const auto payload = test::pattern(21);
  const auto bytes = frame(h, payload);
  std::vector<std::byte> udp_payload(udp_payload_size(h.bth.opcode, payload.size()));
  ASSERT_TRUE(encode_udp_payload(sample_ip(), h, payload, udp_payload).ok());
  EXPECT_EQ(std::vector<std::byte>(bytes.begin() + 42, bytes.end()), udp_payload);
}

TEST(WireFrame, PublishedUcSendPacketIsReproducedByteForByte) {
  // Scapy's RoCE regression packet (UC SEND only, 18 payload bytes and 2 pad bytes); Scapy
  // computes IP checksum 0xb4d5, UDP checksum 0xaca2 and ICRC bytes 78 f3 53 f3.
  const IpUdpInfo ip{0xC0A80007, 0xC0A80007, 49152, 4791, 0, 1, 64, 1144};
  RoceHeaders h;
  h.bth.opcode = Opcode::kUcSendOnly;
  h.bth.migration = true;
  h.bth.pkey = 0xFFFF;
  h.bth.dest_qp = 211;
  h.bth.psn = 13571856;
  const auto payload = test::hex_bytes("46 30 81 8b e2 89 35 d9 0e 9a 95 50 54 01 be 88 5e 50");
  std::vector<std::byte> out(ipv4_packet_size(h.bth.opcode, payload.size()));
  ASSERT_TRUE(encode_ipv4_packet(ip, h, payload, out).ok());
  EXPECT_EQ(out, test::hex_bytes("45 01 00 40 04 78 40 00 40 11 b4 d5 c0 a8 00 07 c0 a8 00 07"
                                 "c0 00 12 b7 00 2c ac a2"
                                 "24 60 ff ff 00 00 00 d3 00 cf 17 10"
                                 "46 30 81 8b e2 89 35 d9 0e 9a 95 50 54 01 be 88 5e 50 00 00"
                                 "78 f3 53 f3"));
  const auto view = decode_ipv4_packet(out);
  ASSERT_TRUE(view.ok()) << describe(view.error);
  EXPECT_EQ(view.value.roce.headers.bth.pad_count, 2);
  EXPECT_EQ(view.value.roce.icrc, 0xF353F378u);
}

TEST(WireFrame, CorruptionIsCaughtByTheIcrc) {
  const RoceHeaders h = sample_headers(Opcode::kRcSendOnly, Fields::kTypical, 40);
  auto bytes = frame(h, test::pattern(40), sample_ip(), UdpChecksum::kZero);
  for (std::size_t i = 42; i < bytes.size(); ++i) {
    if (i == 42 + 4) continue;  // BTH byte 4 is masked
    auto bad = bytes;
    bad[i] ^= std::byte{0x10};
    const auto view = decode_ethernet_frame(bad);
    EXPECT_FALSE(view.ok()) << i;
  }
  // With a real UDP checksum recomputed over the damage, only the ICRC notices.
  auto bad = frame(h, test::pattern(40));
  bad[60] ^= std::byte{0x01};
  fill_udp_checksum(std::span(bad).subspan(kEthernetHeaderSize));
  EXPECT_EQ(decode_ethernet_frame(bad).error, WireError::kIcrcMismatch);
}

TEST(WireFrame, TruncationAtEveryLengthIsDetected) {
  for (const Opcode op : test::supported_opcodes()) {
    const std::size_t size = header_chain(op).payload ? 9 : 0;
    const auto bytes = frame(sample_headers(op, Fields::kTypical, size), test::pattern(size));
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      const std::vector<std::byte> cut(bytes.begin(), bytes.begin() + n);
      EXPECT_EQ(decode_ethernet_frame(cut).error, WireError::kTruncated)
          << opcode_name(op) << " cut at " << n;
    }
  }
}

TEST(WireFrame, OnlyIpv4EtherTypeIsAccepted) {
  auto bytes = frame(sample_headers(Opcode::kRcSendOnly, Fields::kTypical, 4), test::pattern(4));
  bytes[12] = std::byte{0x86};
  bytes[13] = std::byte{0xDD};
  EXPECT_EQ(decode_ethernet_frame(bytes).error, WireError::kNotIpv4);
  bytes[12] = std::byte{0x81};  // VLAN tag
  bytes[13] = std::byte{0x00};
  EXPECT_EQ(decode_ethernet_frame(bytes).error, WireError::kNotIpv4);
}

TEST(WireFrame, EncodeReportsSmallBuffers) {
  const RoceHeaders h = sample_headers(Opcode::kUdSendOnlyImm, Fields::kTypical, 7);
  const auto payload = test::pattern(7);
  const std::size_t size = ethernet_frame_size(h.bth.opcode, payload.size());
  for (std::size_t n = 0; n < size; ++n) {
    std::vector<std::byte> small(n);
    EXPECT_EQ(encode_ethernet_frame(kEth, sample_ip(), h, payload, small).error,
              WireError::kBufferTooSmall)
        << n;
  }
}

}  // namespace
}  // namespace bifrost::wire
