#include "bifrost/wire/codec.h"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "bifrost/wire/frame.h"
#include "samples.h"
#include "test_util.h"

namespace bifrost::wire {
namespace {

using test::Fields;
using test::pattern;
using test::sample_headers;
using test::sample_ip;

std::vector<std::byte> encode(const RoceHeaders& h, const std::vector<std::byte>& payload,
                              const IpUdpInfo& ip = sample_ip()) {
  std::vector<std::byte> out(udp_payload_size(h, payload.size()));
  const auto written = encode_udp_payload(ip, h, payload, out);
  EXPECT_TRUE(written.ok()) << describe(written.error);
  EXPECT_EQ(written.value, out.size());
  return out;
}

TEST(WireCodec, EveryOpcodeRoundTripsWithEdgeValues) {
  for (const Opcode op : test::supported_opcodes()) {
    const bool carries_payload = header_chain(op).payload;
    for (const Fields fields : {Fields::kTypical, Fields::kAllZero, Fields::kAllOnes}) {
      for (const std::size_t size : {0, 1, 2, 3, 4, 5, 255, 256, 1024, 4096}) {
        if (!carries_payload && size != 0) continue;
        SCOPED_TRACE(std::string(opcode_name(op)) + " payload " + std::to_string(size));
        const RoceHeaders h = sample_headers(op, fields, size);
        const auto payload = pattern(size, static_cast<uint8_t>(size));
        const auto bytes = encode(h, payload);
        const auto decoded = decode_udp_payload(bytes);
        ASSERT_TRUE(decoded.ok()) << describe(decoded.error);
        EXPECT_EQ(decoded.value.headers, h);
        EXPECT_EQ(
            std::vector<std::byte>(decoded.value.payload.begin(), decoded.value.payload.end()),
            payload);
        EXPECT_EQ(bytes.size() % 4, 0u);
        EXPECT_TRUE(icrc_matches(sample_ip(), bytes));
      }
    }
  }
}

// The scatter-gather encode (headers, payload in place, tail) sends the same bytes.
TEST(WireCodec, GatherEncodeEqualsTheContiguousOne) {
  for (const Opcode op : test::supported_opcodes()) {
    const bool carries_payload = header_chain(op).payload;
    for (const Fields fields : {Fields::kTypical, Fields::kAllOnes}) {
      for (const std::size_t size : {0, 1, 2, 3, 4, 7, 64, 1021, 4096}) {
        if (!carries_payload && size != 0) continue;
        SCOPED_TRACE(std::string(opcode_name(op)) + " payload " + std::to_string(size));
        RoceHeaders h = sample_headers(op, fields, size);
        h.sr.present = fields == Fields::kAllOnes && carries_payload;
        const auto payload = pattern(size, static_cast<uint8_t>(size + 3));
        std::vector<std::byte> whole(udp_payload_size(h, size));
        ASSERT_TRUE(encode_udp_payload(sample_ip(fields), h, payload, whole).ok());
        std::array<std::byte, 128> head{};
        std::array<std::byte, kMaxGatherTail> tail{};
        const auto sizes = encode_udp_gather(sample_ip(fields), h, payload, head, tail);
        ASSERT_TRUE(sizes.ok()) << describe(sizes.error);
        std::vector<std::byte> joined(head.begin(), head.begin() + sizes.value.head);
        joined.insert(joined.end(), payload.begin(), payload.end());
        joined.insert(joined.end(), tail.begin(), tail.begin() + sizes.value.tail);
        EXPECT_EQ(joined, whole);
      }
    }
  }
}

TEST(WireCodec, GatherEncodeChecksLikeTheContiguousOne) {
  RoceHeaders h = sample_headers(Opcode::kRcWriteFirst, Fields::kTypical, 8);
  std::array<std::byte, kMaxGatherTail> tail{};
  std::array<std::byte, 8> small{};
  EXPECT_EQ(encode_udp_gather(sample_ip(), h, pattern(8), small, tail).error,
            WireError::kBufferTooSmall);
  h.bth.psn = 1u << 24;
  std::array<std::byte, 128> head{};
  EXPECT_EQ(encode_udp_gather(sample_ip(), h, pattern(8), head, tail).error,
            WireError::kFieldOutOfRange);
  const RoceHeaders cnp = sample_headers(Opcode::kCnp, Fields::kTypical, 0);
  EXPECT_EQ(encode_udp_gather(sample_ip(), cnp, pattern(4), head, tail).error,
            WireError::kPayloadNotAllowed);
}

TEST(WireCodec, FieldLayoutMatchesIbta) {
  RoceHeaders h;
  h.bth =
      Bth{Opcode::kRcWriteOnlyImm, true, true, 0, 0, 0x8001, true, false, 0x123456, true, 0xFEDCBA};
  h.reth = Reth{0x0102030405060708, 0x11223344, 0x00000003};
  h.immediate = 0xA1B2C3D4;
  const auto bytes = encode(h, test::bytes_of({0xEE, 0xEE, 0xEE}));
  const auto expected = test::hex_bytes(
      "0b d0 80 01  80 12 34 56  80 fe dc ba"              // BTH: SE|M|pad 1, pkey, F, QP, A, PSN
      "01 02 03 04 05 06 07 08  11 22 33 44  00 00 00 03"  // RETH
      "a1 b2 c3 d4"                                        // ImmDt
      "ee ee ee 00");                                      // payload and one pad byte
  ASSERT_EQ(bytes.size(), expected.size() + kIcrcSize);
  EXPECT_EQ(std::vector<std::byte>(bytes.begin(), bytes.end() - kIcrcSize), expected);
}

TEST(WireCodec, SrExtensionFollowsTheBthWhenItsReservedBitIsSet) {
  RoceHeaders h;
  h.bth.opcode = Opcode::kRcWriteMiddle;
  h.bth.dest_qp = 0x000102;
  h.bth.psn = 0x000304;
  h.sr = SrExtension{true, 0x1122334455667788, 0x99AABBCC, 0x00010000, 0x00000007, 0x00000400};
  const auto bytes = encode(h, test::bytes_of({0xEE, 0xEE, 0xEE, 0xEE}));
  const auto expected = test::hex_bytes(
      "07 40 ff ff  00 00 01 02  40 00 03 04"              // BTH with the extension bit in byte 8
      "11 22 33 44 55 66 77 88  99 aa bb cc  00 01 00 00"  // extension: address, key, length,
      "00 00 00 07  00 00 04 00"                           // sequence, offset
      "ee ee ee ee");
  ASSERT_EQ(bytes.size(), expected.size() + kIcrcSize);
  EXPECT_EQ(std::vector<std::byte>(bytes.begin(), bytes.end() - kIcrcSize), expected);
  const auto decoded = decode_udp_payload(bytes);
  ASSERT_TRUE(decoded.ok()) << describe(decoded.error);
  EXPECT_EQ(decoded.value.headers, h);
  EXPECT_EQ(decoded.value.payload.size(), 4u);
  EXPECT_TRUE(icrc_matches(sample_ip(), bytes));

  // A SACK: ACK opcode, AETH after the extension; truncating into the extension is caught.
  RoceHeaders sack;
  sack.bth.opcode = Opcode::kRcAcknowledge;
  sack.aeth = make_nak(5, NakCode::kPsnSequenceError);
  sack.sr = SrExtension{true, 0, 0, 0, 0x00ABCDEF, 0};
  const auto sack_bytes = encode(sack, {});
  EXPECT_EQ(sack_bytes.size(), kBthSize + kSrExtensionSize + kAethSize + kIcrcSize);
  const auto sack_decoded = decode_udp_payload(sack_bytes);
  ASSERT_TRUE(sack_decoded.ok());
  EXPECT_EQ(sack_decoded.value.headers, sack);
  const auto cut = std::span<const std::byte>(sack_bytes).first(kBthSize + 8 + kIcrcSize);
  EXPECT_FALSE(decode_udp_payload(cut).ok());
}

// FaSR's lean extension (section IV-D) is a size that links charge, not an encoding: the
// codec writes the 24-byte form whatever `lean` says.
TEST(WireCodec, LeanSrExtensionSizesArePapersAndTheEncodingStaysFull) {
  auto size_of = [](Opcode op, bool lean, const Aeth& aeth = make_ack(0)) {
    RoceHeaders h;
    h.bth.opcode = op;
    h.aeth = aeth;
    h.sr.present = true;
    h.sr.lean = lean;
    return sr_extension_size(h);
  };
  EXPECT_EQ(size_of(Opcode::kRcSendMiddle, true), 6u);
  EXPECT_EQ(size_of(Opcode::kRcSendOnlyImm, true), 6u);
  EXPECT_EQ(size_of(Opcode::kRcWriteMiddle, true), 8u);
  EXPECT_EQ(size_of(Opcode::kRcWriteFirst, true), 8u);
  EXPECT_EQ(size_of(Opcode::kRcWriteLastImm, true), 14u);
  EXPECT_EQ(size_of(Opcode::kRcAcknowledge, true, make_nak(0, NakCode::kPsnSequenceError)), 4u);
  EXPECT_EQ(size_of(Opcode::kRcAcknowledge, true), 1u);
  EXPECT_EQ(size_of(Opcode::kRcWriteMiddle, false), kSrExtensionSize);
  RoceHeaders none;
  none.sr.lean = true;  // without the extension there is nothing to charge
  EXPECT_EQ(sr_extension_size(none), 0u);

  RoceHeaders h;
  h.bth.opcode = Opcode::kRcWriteMiddle;
  h.sr = SrExtension{true, 0x1000, 0x22, 4096, 0xFFFFFFFF, 1024, true};
  EXPECT_EQ(ethernet_frame_size(h, 1024), ethernet_frame_size(Opcode::kRcWriteMiddle, 1024) + 8);
  EXPECT_EQ(udp_payload_size(h, 1024),
            udp_payload_size(Opcode::kRcWriteMiddle, 1024) + kSrExtensionSize);
  const auto bytes = encode(h, std::vector<std::byte>(1024));
  EXPECT_EQ(bytes.size(), udp_payload_size(Opcode::kRcWriteMiddle, 1024) + kSrExtensionSize);
  const auto decoded = decode_udp_payload(bytes);
  ASSERT_TRUE(decoded.ok());
  EXPECT_FALSE(decoded.value.headers.sr.lean);
  EXPECT_EQ(decoded.value.headers.sr.address, 0x1000u);
}

TEST(WireCodec, DethAndAethLayout) {
  RoceHeaders ud;
  ud.bth.opcode = Opcode::kUdSendOnly;
  ud.bth.migration = false;
  ud.bth.dest_qp = 1;
  ud.deth = Deth{0x80010002, 0xABCDEF};
  auto bytes = encode(ud, {});
  EXPECT_EQ(std::vector<std::byte>(bytes.begin() + 12, bytes.begin() + 20),
            test::hex_bytes("80 01 00 02 00 ab cd ef"));

  RoceHeaders ack;
  ack.bth.opcode = Opcode::kRcAcknowledge;
  ack.aeth = make_rnr_nak(0x010203, 5);
  bytes = encode(ack, {});
  EXPECT_EQ(std::vector<std::byte>(bytes.begin() + 12, bytes.begin() + 16),
            test::hex_bytes("25 01 02 03"));
}

TEST(WireCodec, CnpLayoutMatchesRoceV2Annex) {
  const RoceHeaders cnp = make_cnp(0x000118);
  const auto bytes = encode(cnp, {});
  ASSERT_EQ(bytes.size(), kBthSize + kCnpReservedSize + kIcrcSize);
  EXPECT_EQ(header_size(Opcode::kCnp), kBthSize + kCnpReservedSize);
  EXPECT_EQ(std::vector<std::byte>(bytes.begin(), bytes.end() - kIcrcSize),
            test::hex_bytes("81 00 ff ff  40 00 01 18  00 00 00 00"  // BTH: BECN, QP, PSN 0
                            "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"));
  const auto decoded = decode_udp_payload(bytes);
  ASSERT_TRUE(decoded.ok()) << describe(decoded.error);
  EXPECT_EQ(decoded.value.headers, cnp);
  EXPECT_TRUE(decoded.value.headers.bth.becn);
  EXPECT_FALSE(decoded.value.headers.bth.fecn);
  EXPECT_EQ(decoded.value.headers.bth.dest_qp, 0x000118u);
  EXPECT_TRUE(decoded.value.payload.empty());
}

TEST(WireCodec, CnpReservedBytesAreIgnoredOnReceiveAndZeroOnSend) {
  auto bytes = encode(make_cnp(0xABCDEF, 0x8001), {});
  for (std::size_t i = kBthSize; i < kBthSize + kCnpReservedSize; ++i) bytes[i] = std::byte{0x5A};
  const auto decoded = decode_udp_payload(bytes);
  ASSERT_TRUE(decoded.ok()) << describe(decoded.error);
  EXPECT_EQ(decoded.value.headers, make_cnp(0xABCDEF, 0x8001));
  const auto again = encode(decoded.value.headers, {});
  for (std::size_t i = kBthSize; i < kBthSize + kCnpReservedSize; ++i) {
    EXPECT_EQ(again[i], std::byte{0}) << i;
  }
}

TEST(WireCodec, CnpCarriesNoPayload) {
  const RoceHeaders cnp = make_cnp(7);
  std::vector<std::byte> out(128);
  EXPECT_EQ(encode_udp_payload(sample_ip(), cnp, pattern(4), out).error,
            WireError::kPayloadNotAllowed);
  // Four bytes more than BTH + reserved + ICRC: too long for a CNP.
  auto bytes = encode(cnp, {});
  bytes.insert(bytes.end() - kIcrcSize, 4, std::byte{0});
  EXPECT_EQ(decode_udp_payload(bytes).error, WireError::kPayloadNotAllowed);
}

TEST(WireCodec, PadBytesAreZeroAndPadCountFollowsPayload) {
  for (std::size_t size = 0; size < 9; ++size) {
    RoceHeaders h = sample_headers(Opcode::kRcSendOnly, Fields::kTypical, size);
    h.bth.pad_count = 3;  // ignored by the encoder
    const auto bytes = encode(h, std::vector<std::byte>(size, std::byte{0xAA}));
    const auto decoded = decode_udp_payload(bytes);
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(decoded.value.headers.bth.pad_count, pad_for(size));
    EXPECT_EQ(decoded.value.payload.size(), size);
    for (std::size_t i = kBthSize + size; i < bytes.size() - kIcrcSize; ++i) {
      EXPECT_EQ(bytes[i], std::byte{0}) << i;
    }
  }
}

TEST(WireCodec, TruncationAtEveryLengthIsDetected) {
  for (const Opcode op : test::supported_opcodes()) {
    const std::size_t size = header_chain(op).payload ? 37 : 0;
    const auto bytes = encode(sample_headers(op, Fields::kTypical, size), pattern(size));
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      SCOPED_TRACE(std::string(opcode_name(op)) + " cut at " + std::to_string(n));
      // An exact copy so that AddressSanitizer flags any read past the cut.
      const std::vector<std::byte> cut(bytes.begin(), bytes.begin() + n);
      const auto decoded = decode_udp_payload(cut);
      if (n < header_size(op) + kIcrcSize) {
        EXPECT_EQ(decoded.error, WireError::kTruncated);
      } else {
        // Past the headers a cut packet looks like a shorter one; the ICRC exposes it.
        EXPECT_TRUE(!decoded.ok() || !icrc_matches(sample_ip(), cut));
      }
    }
  }
}

TEST(WireCodec, UnsupportedOpcodesAreRejected) {
  auto bytes = encode(sample_headers(Opcode::kRcSendOnly, Fields::kTypical, 8), pattern(8));
  int rejected = 0;
  for (int raw = 0; raw < 256; ++raw) {
    if (is_supported(static_cast<uint8_t>(raw))) continue;
    bytes[0] = static_cast<std::byte>(raw);
    EXPECT_EQ(decode_udp_payload(bytes).error, WireError::kUnsupportedOpcode) << raw;
    ++rejected;
  }
  EXPECT_EQ(rejected, 256 - 33);

  RoceHeaders h;
  h.bth.opcode = static_cast<Opcode>(0x13);  // RC compare-and-swap
  std::vector<std::byte> out(64);
  EXPECT_EQ(encode_udp_payload(sample_ip(), h, {}, out).error, WireError::kUnsupportedOpcode);
}

TEST(WireCodec, MalformedTransportHeadersAreRejected) {
  // Nonzero transport version.
  auto bytes = encode(sample_headers(Opcode::kRcSendOnly, Fields::kTypical, 4), pattern(4));
  bytes[1] |= std::byte{0x01};
  EXPECT_EQ(decode_udp_payload(bytes).error, WireError::kBadTransportVersion);

  // Payload after an ACK.
  bytes = encode(sample_headers(Opcode::kRcAcknowledge, Fields::kTypical, 0), {});
  bytes.insert(bytes.end() - kIcrcSize, 4, std::byte{0});
  EXPECT_EQ(decode_udp_payload(bytes).error, WireError::kPayloadNotAllowed);

  // Payload after a READ request.
  bytes = encode(sample_headers(Opcode::kRcReadRequest, Fields::kTypical, 0), {});
  bytes.insert(bytes.end() - kIcrcSize, 8, std::byte{0});
  EXPECT_EQ(decode_udp_payload(bytes).error, WireError::kPayloadNotAllowed);

  // A pad count on a packet without payload bytes.
  bytes = encode(sample_headers(Opcode::kRcSendOnly, Fields::kTypical, 0), {});
  bytes[1] |= std::byte{0x30};
  EXPECT_EQ(decode_udp_payload(bytes).error, WireError::kBadPad);
  bytes = encode(sample_headers(Opcode::kRcAcknowledge, Fields::kTypical, 0), {});
  bytes[1] |= std::byte{0x10};
  EXPECT_EQ(decode_udp_payload(bytes).error, WireError::kBadPad);

  // Lengths that are not a multiple of 4.
  bytes = encode(sample_headers(Opcode::kRcSendOnly, Fields::kTypical, 8), pattern(8));
  for (int extra = 1; extra < 4; ++extra) {
    auto odd = bytes;
    odd.insert(odd.end(), static_cast<std::size_t>(extra), std::byte{0});
    EXPECT_EQ(decode_udp_payload(odd).error, WireError::kMisaligned) << extra;
  }
}

TEST(WireCodec, EncodeRejectsBadInputsWithoutWritingOutOfBounds) {
  const RoceHeaders h = sample_headers(Opcode::kRcWriteFirst, Fields::kTypical, 10);
  const auto payload = pattern(10);
  const std::size_t size = udp_payload_size(h.bth.opcode, payload.size());
  for (std::size_t n = 0; n < size; ++n) {
    std::vector<std::byte> small(n);  // exact size: ASan catches any overrun
    EXPECT_EQ(encode_udp_payload(sample_ip(), h, payload, small).error, WireError::kBufferTooSmall)
        << n;
  }

  std::vector<std::byte> out(70000);
  auto bad = h;
  bad.bth.psn = 0x1000000;
  EXPECT_EQ(encode_udp_payload(sample_ip(), bad, payload, out).error, WireError::kFieldOutOfRange);
  bad = h;
  bad.bth.dest_qp = 0x1000000;
  EXPECT_EQ(encode_udp_payload(sample_ip(), bad, payload, out).error, WireError::kFieldOutOfRange);
  bad = h;
  bad.bth.version = 16;
  EXPECT_EQ(encode_udp_payload(sample_ip(), bad, payload, out).error, WireError::kFieldOutOfRange);

  RoceHeaders ud = sample_headers(Opcode::kUdSendOnly, Fields::kTypical, 0);
  ud.deth.src_qp = 0x1000000;
  EXPECT_EQ(encode_udp_payload(sample_ip(), ud, {}, out).error, WireError::kFieldOutOfRange);
  RoceHeaders ack = sample_headers(Opcode::kRcAcknowledge, Fields::kTypical, 0);
  ack.aeth.msn = 0x1000000;
  EXPECT_EQ(encode_udp_payload(sample_ip(), ack, {}, out).error, WireError::kFieldOutOfRange);
  // Headers the opcode does not carry are not checked.
  RoceHeaders send = sample_headers(Opcode::kRcSendOnly, Fields::kTypical, 0);
  send.aeth.msn = 0x1000000;
  EXPECT_TRUE(encode_udp_payload(sample_ip(), send, {}, out).ok());

  const RoceHeaders read = sample_headers(Opcode::kRcReadRequest, Fields::kTypical, 0);
  EXPECT_EQ(encode_udp_payload(sample_ip(), read, pattern(1), out).error,
            WireError::kPayloadNotAllowed);

  IpUdpInfo ip = sample_ip();
  ip.dscp = 64;
  EXPECT_EQ(encode_udp_payload(ip, h, payload, out).error, WireError::kFieldOutOfRange);

  const RoceHeaders big = sample_headers(Opcode::kRcSendOnly, Fields::kTypical, 0);
  const auto huge = pattern(0xFFFF - 28 - 12 - 4 + 1);
  std::vector<std::byte> large(70000);
  EXPECT_EQ(encode_udp_payload(sample_ip(), big, huge, large).error, WireError::kPacketTooLarge);
  const auto fits = pattern(0xFFFF - 28 - 12 - 4 - 3);  // largest 4-aligned payload
  EXPECT_TRUE(encode_udp_payload(sample_ip(), big, fits, large).ok());
}

TEST(WireCodec, IcrcCoversTheOuterHeaders) {
  const RoceHeaders h = sample_headers(Opcode::kRcSendOnly, Fields::kTypical, 16);
  const auto bytes = encode(h, pattern(16));
  IpUdpInfo ip = sample_ip();
  EXPECT_TRUE(icrc_matches(ip, bytes));
  // DSCP, ECN and TTL are masked: routers may change them.
  ip.dscp = 0;
  ip.ecn = 3;
  ip.ttl = 1;
  EXPECT_TRUE(icrc_matches(ip, bytes));
  for (int field = 0; field < 5; ++field) {
    IpUdpInfo changed = sample_ip();
    switch (field) {
      case 0:
        changed.src_ip ^= 1;
        break;
      case 1:
        changed.dst_ip ^= 0x100;
        break;
      case 2:
        changed.src_port ^= 1;
        break;
      case 3:
        changed.dst_port = 4792;
        break;
      default:
        changed.ip_id ^= 0x8000;
        break;
    }
    EXPECT_FALSE(icrc_matches(changed, bytes)) << field;
  }
  // FECN/BECN live in the masked BTH byte 4.
  auto marked = bytes;
  marked[4] |= std::byte{0xC0};
  EXPECT_TRUE(icrc_matches(sample_ip(), marked));
  auto flipped = bytes;
  flipped[20] ^= std::byte{1};
  EXPECT_FALSE(icrc_matches(sample_ip(), flipped));
  EXPECT_FALSE(icrc_matches(sample_ip(), std::span<const std::byte>(bytes).first(3)));
}

TEST(WireCodec, DescribeNamesEveryError) {
  for (int e = 0; e <= static_cast<int>(WireError::kNotRoceV2Port); ++e) {
    const auto text = describe(static_cast<WireError>(e));
    EXPECT_FALSE(text.empty());
    EXPECT_NE(text, "unknown wire error") << e;
  }
  EXPECT_EQ(describe(WireError::kIcrcMismatch), "ICRC mismatch");
}

}  // namespace
}  // namespace bifrost::wire
