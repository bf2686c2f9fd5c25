// The transport's own bytes: the WRITE immediate, the SEND header, the software ACK and the
// control message.
#include <gtest/gtest.h>

#include <array>

#include <limits>
#include <utility>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/transport/wire/control_message.h"
#include "bifrost/transport/wire/send_header.h"
#include "bifrost/transport/wire/soft_ack.h"
#include "bifrost/transport/wire/write_imm.h"

namespace bifrost::transport {
namespace {

TEST(WriteImm, RoundTripsAndPacksHintIdOffset) {
  const WriteImmCodec codec(ImmLayout{});
  const WriteImm imm{.hint = true, .message_id = 0x1ABCDE, .unit_offset = 1023};
  const uint32_t raw = codec.encode(imm);
  EXPECT_EQ(raw, 0x8000'0000u | (0x1ABCDEu << 10) | 1023u);
  const WriteImm back = codec.decode(raw);
  EXPECT_TRUE(back.hint);
  EXPECT_EQ(back.message_id, 0x1ABCDEu);
  EXPECT_EQ(back.unit_offset, 1023u);
  EXPECT_EQ(codec.max_units(), 1024u);
}

TEST(WriteImm, RejectsBadLayoutsAndFieldsThatDoNotFit) {
  EXPECT_THROW(WriteImmCodec(ImmLayout{20, 10}), Error);
  EXPECT_THROW(WriteImmCodec(ImmLayout{31, 0}), Error);
  const WriteImmCodec codec(ImmLayout{21, 10});
  EXPECT_THROW((void)codec.encode(WriteImm{.message_id = 1u << 21}), Error);
  EXPECT_THROW((void)codec.encode(WriteImm{.unit_offset = 1024}), Error);
}

TEST(MaxMessageSize, FollowsUnitAndOffsetBits) {
  TransportConfig c;
  EXPECT_EQ(c.max_message_size(), 4u << 20);  // 4 KB units, 10 bits
  c.unit_size = 1024;
  EXPECT_EQ(c.max_message_size(), 1u << 20);  // 1 KB units, 10 bits
  c.imm = ImmLayout{19, 12};
  EXPECT_EQ(c.max_message_size(), 4u << 20);
}

TEST(SendHeader, RoundTripsEveryField) {
  const SendHeader h{.type = SendType::write_grant,
                     .hint = true,
                     .send_number = 0xDEADBEEF,
                     .global = 0x0123'4567'89AB'CDEF,
                     .message_id = 77,
                     .argument = 0xCAFE,
                     .address = 0x7000'0000'1000};
  std::vector<std::byte> bytes(kSendHeaderSize);
  ASSERT_TRUE(encode_send_header(h, bytes));
  const auto back = decode_send_header(bytes);
  ASSERT_TRUE(back);
  EXPECT_EQ(back.value.type, h.type);
  EXPECT_EQ(back.value.hint, h.hint);
  EXPECT_EQ(back.value.send_number, h.send_number);
  EXPECT_EQ(back.value.global, h.global);
  EXPECT_EQ(back.value.message_id, h.message_id);
  EXPECT_EQ(back.value.argument, h.argument);
  EXPECT_EQ(back.value.address, h.address);
}

TEST(SendHeader, RejectsTruncatedUnknownTypeAndReservedBits) {
  std::vector<std::byte> bytes(kSendHeaderSize);
  ASSERT_TRUE(encode_send_header(SendHeader{}, bytes));
  EXPECT_EQ(decode_send_header(std::span(bytes).first(31)).error, wire::WireError::kTruncated);
  auto bad = bytes;
  bad[0] = std::byte{10};  // past ack
  EXPECT_EQ(decode_send_header(bad).error, wire::WireError::kFieldOutOfRange);
  bad = bytes;
  bad[1] = std::byte{2};
  EXPECT_EQ(decode_send_header(bad).error, wire::WireError::kFieldOutOfRange);
  bad = bytes;
  bad[3] = std::byte{1};
  EXPECT_EQ(decode_send_header(bad).error, wire::WireError::kFieldOutOfRange);
}

SoftAck mixed_ack() {
  SoftAck ack;
  ack.connection = 42;
  ack.count = 3;
  ack.entries[0] = AckedWqe{.is_send = true, .global = 1000};
  ack.entries[1] = AckedWqe{.is_send = false, .write_imm = 0x1234};
  ack.entries[2] = AckedWqe{.is_send = true, .global = 1000 + 0xFFFF'FFFFull};
  ack.timing_entry = 2;
  ack.ack_delay_ns = 5000;
  return ack;
}

TEST(SoftAck, LayoutIsHeaderPlusFourBytesPerEntryLeastSignificantBitFirst) {
  std::vector<std::byte> bytes(kSoftAckMaxSize);
  const auto size = encode_soft_ack(mixed_ack(), bytes);
  ASSERT_TRUE(size);
  EXPECT_EQ(size.value, 32u + 3 * 4);
  // Type bitmap at bytes 8..11: entries 0 and 2 are SENDs -> 0b101.
  EXPECT_EQ(bytes[11], std::byte{0b101});
  // Base global (least SEND global) at 16..23, entries as offsets against it.
  EXPECT_EQ(bytes[23], std::byte{1000 & 0xFF});
  EXPECT_EQ(bytes[32 + 11], std::byte{0xFF});
  const auto back = decode_soft_ack(std::span(bytes).first(size.value));
  ASSERT_TRUE(back);
  EXPECT_EQ(back.value.connection, 42u);
  EXPECT_EQ(back.value.count, 3);
  EXPECT_EQ(back.value.timing_entry, 2);
  EXPECT_EQ(back.value.ack_delay_ns, 5000u);
  EXPECT_EQ(back.value.entries[0].global, 1000u);
  EXPECT_FALSE(back.value.entries[1].is_send);
  EXPECT_EQ(back.value.entries[1].write_imm, 0x1234u);
  EXPECT_EQ(back.value.entries[2].global, 1000 + 0xFFFF'FFFFull);
}

TEST(SoftAck, GlobalsTwoToTheThirtyTwoApartDoNotEncode) {
  SoftAck ack = mixed_ack();
  ack.entries[2].global = 1000 + (uint64_t{1} << 32);
  std::vector<std::byte> bytes(kSoftAckMaxSize);
  EXPECT_EQ(encode_soft_ack(ack, bytes).error, wire::WireError::kFieldOutOfRange);
}

// Found by fuzz_transport: the least SEND global was searched with UINT64_MAX as "none", so an
// ACK whose only SEND carries global 2^64 - 1 decoded but did not re-encode.
TEST(SoftAck, TheLargestGlobalNumberRoundTrips) {
  SoftAck ack = mixed_ack();
  ack.count = 2;
  ack.timing_entry = 1;
  ack.entries[0].global = std::numeric_limits<uint64_t>::max();
  std::vector<std::byte> bytes(kSoftAckMaxSize);
  const auto size = encode_soft_ack(ack, bytes);
  ASSERT_TRUE(size);
  const auto back = decode_soft_ack(std::span(bytes).first(size.value));
  ASSERT_TRUE(back);
  EXPECT_EQ(back.value.entries[0].global, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(back.value.entries[1].write_imm, 0x1234u);
}

TEST(SoftAck, DecoderRejectsMalformedAcks) {
  std::vector<std::byte> bytes(kSoftAckMaxSize);
  const auto size = encode_soft_ack(mixed_ack(), bytes);
  ASSERT_TRUE(size);
  const auto good = std::span(bytes).first(size.value);
  EXPECT_EQ(decode_soft_ack(good.first(31)).error, wire::WireError::kTruncated);
  EXPECT_EQ(decode_soft_ack(good.first(size.value - 1)).error, wire::WireError::kTruncated);
  EXPECT_EQ(decode_soft_ack(std::span(bytes).first(size.value + 4)).error,
            wire::WireError::kPayloadNotAllowed);
  std::vector<std::byte> bad(good.begin(), good.end());
  bad[4] = std::byte{0};  // count 0
  EXPECT_EQ(decode_soft_ack(bad).error, wire::WireError::kFieldOutOfRange);
  bad.assign(good.begin(), good.end());
  bad[5] = std::byte{3};  // timing entry past the count
  EXPECT_EQ(decode_soft_ack(bad).error, wire::WireError::kFieldOutOfRange);
  bad.assign(good.begin(), good.end());
  bad[11] = std::byte{0b1101};  // a type bit past the count
  EXPECT_EQ(decode_soft_ack(bad).error, wire::WireError::kFieldOutOfRange);
  bad.assign(good.begin(), good.end());
  bad[36] = std::byte{0x80};  // a WRITE entry with the hint bit
  EXPECT_EQ(decode_soft_ack(bad).error, wire::WireError::kFieldOutOfRange);
  bad.assign(good.begin(), good.end());
  bad[28] = std::byte{0x80};  // the WRITE cumulative with the hint bit
  EXPECT_EQ(decode_soft_ack(bad).error, wire::WireError::kFieldOutOfRange);
}

// The cumulative part follows A.1.2's 24 bytes unchanged: the SEND floor at 24, the WRITE
// position (an immediate without the hint bit) at 28, then the entries.
TEST(SoftAck, TheCumulativePartFollowsThePapersHeaderAndRoundTrips) {
  SoftAck ack = mixed_ack();
  ack.send_cumulative = 0xFFFF'FFF0;
  ack.write_cumulative = 0x7ABC'DEF1;
  std::vector<std::byte> bytes(kSoftAckMaxSize);
  const auto size = encode_soft_ack(ack, bytes);
  ASSERT_TRUE(size);
  EXPECT_EQ(bytes[4], std::byte{3});      // the count where A.1.2 has it
  EXPECT_EQ(bytes[24], std::byte{0xFF});  // send_cumulative, big-endian
  EXPECT_EQ(bytes[27], std::byte{0xF0});
  EXPECT_EQ(bytes[28], std::byte{0x7A});  // write_cumulative
  EXPECT_EQ(bytes[31], std::byte{0xF1});
  const auto back = decode_soft_ack(std::span(bytes).first(size.value));
  ASSERT_TRUE(back);
  EXPECT_EQ(back.value.send_cumulative, 0xFFFF'FFF0u);
  EXPECT_EQ(back.value.write_cumulative, 0x7ABC'DEF1u);
  EXPECT_EQ(back.value.entries[0].global, 1000u);
  ack.write_cumulative = 0x8000'0000;  // the hint bit has no meaning here
  EXPECT_EQ(encode_soft_ack(ack, bytes).error, wire::WireError::kFieldOutOfRange);
}

// The ECN echo takes bit 0 of the header's former reserved 16 bits (offset 6): the ACK keeps
// its header size, and an ACK without the echo is byte for byte what it was before.
TEST(SoftAck, TheEcnEchoIsBitZeroOfTheFlagsAndRoundTrips) {
  std::vector<std::byte> plain(kSoftAckMaxSize);
  const auto plain_size = encode_soft_ack(mixed_ack(), plain);
  ASSERT_TRUE(plain_size);
  EXPECT_EQ(plain[6], std::byte{0});
  EXPECT_EQ(plain[7], std::byte{0});
  EXPECT_FALSE(decode_soft_ack(std::span(plain).first(plain_size.value)).value.ecn_echo);

  SoftAck marked = mixed_ack();
  marked.ecn_echo = true;
  std::vector<std::byte> bytes(kSoftAckMaxSize);
  const auto size = encode_soft_ack(marked, bytes);
  ASSERT_TRUE(size);
  EXPECT_EQ(size.value, plain_size.value);
  EXPECT_EQ(bytes[6], std::byte{0});
  EXPECT_EQ(bytes[7], std::byte{1});
  for (size_t i = 0; i < size.value; ++i) {
    if (i != 7) {
      EXPECT_EQ(bytes[i], plain[i]) << "byte " << i;
    }
  }
  const auto back = decode_soft_ack(std::span(bytes).first(size.value));
  ASSERT_TRUE(back);
  EXPECT_TRUE(back.value.ecn_echo);
  EXPECT_EQ(back.value.count, 3);
  EXPECT_EQ(back.value.entries[2].global, 1000 + 0xFFFF'FFFFull);

  // Every other flag bit is still reserved.
  for (const auto& [index, value] : {std::pair{6, 0x80}, std::pair{6, 0x01}, std::pair{7, 0x02}}) {
    std::vector<std::byte> bad(bytes.begin(), bytes.begin() + static_cast<long>(size.value));
    bad[static_cast<size_t>(index)] |= std::byte{static_cast<uint8_t>(value)};
    EXPECT_EQ(decode_soft_ack(bad).error, wire::WireError::kFieldOutOfRange) << index << value;
  }
}

TEST(ControlMessage, RoundTripsAndIsToldApartFromAnAck) {
  const ControlMessage m{.connection = 7,
                         .kind = ControlKind::reconnect_reply,
                         .qp_index = 2,
                         .sequence = 0xDEADBEEF,
                         .qpn = 0xFFFFFF,
                         .psn = 0x123456};
  std::array<std::byte, kControlMessageSize> bytes{};
  const auto size = encode_control_message(m, bytes);
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(size.value, 20u);
  EXPECT_TRUE(is_control_message(bytes));
  const auto back = decode_control_message(bytes);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.value.connection, 7u);
  EXPECT_EQ(back.value.kind, ControlKind::reconnect_reply);
  EXPECT_EQ(back.value.qp_index, 2u);
  EXPECT_EQ(back.value.sequence, 0xDEADBEEFu);
  EXPECT_EQ(back.value.qpn, 0xFFFFFFu);
  EXPECT_EQ(back.value.psn, 0x123456u);

  SoftAck ack;
  ack.connection = 7;
  ack.count = 1;
  std::array<std::byte, kSoftAckMaxSize> ack_bytes{};
  const auto ack_size = encode_soft_ack(ack, ack_bytes);
  ASSERT_TRUE(ack_size.ok());
  EXPECT_FALSE(is_control_message(std::span(ack_bytes).first(ack_size.value)));
}

TEST(ControlMessage, RejectsMalformedMessages) {
  ControlMessage m{.connection = 1, .qpn = 5, .psn = 9};
  std::array<std::byte, kControlMessageSize + 1> bytes{};
  ASSERT_TRUE(encode_control_message(m, bytes).ok());
  const std::span good = std::span(bytes).first(kControlMessageSize);
  EXPECT_EQ(decode_control_message(good.first(19)).error, wire::WireError::kTruncated);
  EXPECT_EQ(decode_control_message(bytes).error, wire::WireError::kPayloadNotAllowed);
  auto bad = bytes;
  for (const uint8_t kind : {0, 8, 255}) {
    bad[5] = std::byte{kind};  // unknown kind
    EXPECT_EQ(decode_control_message(std::span(bad).first(20)).error,
              wire::WireError::kFieldOutOfRange)
        << int{kind};
  }
  bad = bytes;
  bad[12] = std::byte{1};  // QPN above 24 bits
  EXPECT_EQ(decode_control_message(std::span(bad).first(20)).error,
            wire::WireError::kFieldOutOfRange);
  bad = bytes;
  bad[16] = std::byte{1};  // PSN above 24 bits
  EXPECT_EQ(decode_control_message(std::span(bad).first(20)).error,
            wire::WireError::kFieldOutOfRange);
  m.psn = 1u << 24;
  EXPECT_EQ(encode_control_message(m, bytes).error, wire::WireError::kFieldOutOfRange);
  m.psn = 0;
  EXPECT_EQ(encode_control_message(m, std::span(bytes).first(19)).error,
            wire::WireError::kBufferTooSmall);
}

std::vector<std::byte> encoded(const ControlMessage& m) {
  std::vector<std::byte> bytes(kControlMessageSize);
  const auto size = encode_control_message(m, bytes);
  EXPECT_TRUE(size.ok());
  EXPECT_EQ(size.value, kControlMessageSize);
  return bytes;
}

TEST(ControlMessage, ParameterSetAndAckRoundTripInTheirLayout) {
  for (const auto parameter : {RemoteParameter::ack_every_wqes, RemoteParameter::ack_every_bytes,
                               RemoteParameter::ack_timer_ns, RemoteParameter::max_chunk}) {
    const ControlMessage m{.connection = 0x01020304,
                           .kind = ControlKind::parameter_set,
                           .sequence = 0xA0B0C0D0,
                           .parameter = parameter,
                           .value = 0xFEDC'BA98'7654'3210};
    const auto set = encoded(m);
    const std::vector<uint8_t> want = {
        0x01, 0x02, 0x03, 0x04, 0,    3,    0,    static_cast<uint8_t>(parameter),
        0xA0, 0xB0, 0xC0, 0xD0, 0xFE, 0xDC, 0xBA, 0x98,
        0x76, 0x54, 0x32, 0x10};
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(set[i], std::byte{want[i]}) << i;
    EXPECT_TRUE(is_control_message(set));
    const auto back = decode_control_message(set);
    ASSERT_TRUE(back.ok());
    EXPECT_TRUE(back.value == m);
  }
  for (const auto status : {ParameterStatus::applied, ParameterStatus::refused}) {
    ControlMessage m{.connection = 9,
                     .kind = ControlKind::parameter_ack,
                     .sequence = 77,
                     .parameter = RemoteParameter::max_chunk,
                     .value = 123,  // not part of an ack
                     .status = status};
    const auto ack = encoded(m);
    EXPECT_EQ(ack[5], std::byte{4});
    EXPECT_EQ(ack[7], std::byte{4});
    EXPECT_EQ(ack[12], std::byte{static_cast<uint8_t>(status)});
    for (size_t i = 13; i < kControlMessageSize; ++i) EXPECT_EQ(ack[i], std::byte{0}) << i;
    const auto back = decode_control_message(ack);
    ASSERT_TRUE(back.ok());
    m.value = 0;
    EXPECT_TRUE(back.value == m);
  }
}

TEST(ControlMessage, PathActionsRoundTrip) {
  for (const ControlKind kind :
       {ControlKind::set_rate, ControlKind::takeover, ControlKind::takeover_ack}) {
    const ControlMessage m{.connection = 7,
                           .kind = kind,
                           .qp_index = 1,
                           .sequence = 42,
                           .value = uint64_t{40'000'000'000}};
    const auto bytes = encoded(m);
    EXPECT_EQ(bytes[5], std::byte{static_cast<uint8_t>(kind)});
    EXPECT_EQ(bytes[15], std::byte{0x09});  // 40e9 = 0x9_502F_9000, big-endian at 12..19
    EXPECT_EQ(bytes[16], std::byte{0x50});
    const auto back = decode_control_message(bytes);
    ASSERT_TRUE(back.ok());
    EXPECT_TRUE(back.value == m) << static_cast<int>(kind);
  }
}

TEST(ControlMessage, RejectsMalformedParameterMessages) {
  const auto set = encoded(ControlMessage{.kind = ControlKind::parameter_set, .value = 1});
  const auto ack = encoded(ControlMessage{.kind = ControlKind::parameter_ack});
  for (const auto& good : {set, ack}) {
    EXPECT_EQ(decode_control_message(std::span(good).first(19)).error, wire::WireError::kTruncated);
    auto longer = good;
    longer.push_back(std::byte{0});
    EXPECT_EQ(decode_control_message(longer).error, wire::WireError::kPayloadNotAllowed);
    auto bad = good;
    bad[4] = std::byte{1};  // marker
    EXPECT_EQ(decode_control_message(bad).error, wire::WireError::kFieldOutOfRange);
    for (const uint16_t id : {0, 5, 0x0100, 0xFFFF}) {  // unknown parameter
      bad = good;
      bad[6] = std::byte{static_cast<uint8_t>(id >> 8)};
      bad[7] = std::byte{static_cast<uint8_t>(id)};
      EXPECT_EQ(decode_control_message(bad).error, wire::WireError::kFieldOutOfRange) << id;
    }
  }
  for (const uint8_t status : {0, 3, 255}) {  // 3 = timed_out: never on the wire
    auto bad = ack;
    bad[12] = std::byte{status};
    EXPECT_EQ(decode_control_message(bad).error, wire::WireError::kFieldOutOfRange) << int{status};
  }
  for (size_t i = 13; i < kControlMessageSize; ++i) {
    auto bad = ack;
    bad[i] = std::byte{1};
    EXPECT_EQ(decode_control_message(bad).error, wire::WireError::kFieldOutOfRange) << i;
  }

  std::array<std::byte, kControlMessageSize> out{};
  EXPECT_EQ(
      encode_control_message(
          ControlMessage{.kind = ControlKind::parameter_set, .parameter = RemoteParameter{5}}, out)
          .error,
      wire::WireError::kFieldOutOfRange);
  EXPECT_EQ(encode_control_message(ControlMessage{.kind = ControlKind::parameter_ack,
                                                  .status = ParameterStatus::timed_out},
                                   out)
                .error,
            wire::WireError::kFieldOutOfRange);
  EXPECT_EQ(encode_control_message(ControlMessage{.kind = ControlKind{8}}, out).error,
            wire::WireError::kFieldOutOfRange);
  EXPECT_EQ(encode_control_message(ControlMessage{.kind = ControlKind::parameter_set},
                                   std::span(out).first(19))
                .error,
            wire::WireError::kBufferTooSmall);
}

}  // namespace
}  // namespace bifrost::transport
