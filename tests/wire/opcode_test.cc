#include "bifrost/wire/opcode.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace bifrost::wire {
namespace {

TEST(WireOpcode, ExactlyTheListedOpcodesAreSupported) {
  std::set<int> supported;
  for (int raw = 0; raw < 256; ++raw) {
    if (is_supported(static_cast<uint8_t>(raw))) supported.insert(raw);
  }
  std::set<int> expected;
  for (int raw = 0x00; raw <= 0x11; ++raw) expected.insert(raw);  // RC, atomics excluded
  for (int raw = 0x20; raw <= 0x2B; ++raw) expected.insert(raw);  // UC
  expected.insert(0x64);                                          // UD SEND only
  expected.insert(0x65);                                          // UD SEND only with imm
  expected.insert(0x81);                                          // CNP
  EXPECT_EQ(supported, expected);
}

TEST(WireOpcode, ReservedAtomicRdAndVendorOpcodesAreRejected) {
  for (int raw : {0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x1F, 0x2C, 0x40, 0x44, 0x60, 0x63, 0x66,
                  0x80, 0x82, 0xA1, 0xC0, 0xFF}) {
    EXPECT_FALSE(is_supported(static_cast<uint8_t>(raw))) << raw;
  }
}

TEST(WireOpcode, HeaderChainsFollowIbtaTable) {
  struct Row {
    Opcode op;
    HeaderChain chain;
  };
  //         deth   reth   aeth   immdt  payload
  const Row rows[] = {
      {Opcode::kRcSendFirst, {false, false, false, false, true}},
      {Opcode::kRcSendLastImm, {false, false, false, true, true}},
      {Opcode::kRcSendOnlyImm, {false, false, false, true, true}},
      {Opcode::kRcWriteFirst, {false, true, false, false, true}},
      {Opcode::kRcWriteMiddle, {false, false, false, false, true}},
      {Opcode::kRcWriteLastImm, {false, false, false, true, true}},
      {Opcode::kRcWriteOnly, {false, true, false, false, true}},
      {Opcode::kRcWriteOnlyImm, {false, true, false, true, true}},
      {Opcode::kRcReadRequest, {false, true, false, false, false}},
      {Opcode::kRcReadResponseFirst, {false, false, true, false, true}},
      {Opcode::kRcReadResponseMiddle, {false, false, false, false, true}},
      {Opcode::kRcReadResponseLast, {false, false, true, false, true}},
      {Opcode::kRcReadResponseOnly, {false, false, true, false, true}},
      {Opcode::kRcAcknowledge, {false, false, true, false, false}},
      {Opcode::kUcWriteOnlyImm, {false, true, false, true, true}},
      {Opcode::kUcSendMiddle, {false, false, false, false, true}},
      {Opcode::kUdSendOnly, {true, false, false, false, true}},
      {Opcode::kUdSendOnlyImm, {true, false, false, true, true}},
  };
  for (const Row& row : rows) {
    const HeaderChain got = header_chain(row.op);
    SCOPED_TRACE(std::string(opcode_name(row.op)));
    EXPECT_EQ(got.deth, row.chain.deth);
    EXPECT_EQ(got.reth, row.chain.reth);
    EXPECT_EQ(got.aeth, row.chain.aeth);
    EXPECT_EQ(got.immdt, row.chain.immdt);
    EXPECT_EQ(got.payload, row.chain.payload);
  }
}

TEST(WireOpcode, TransportAndNames) {
  EXPECT_EQ(transport_of(Opcode::kRcAcknowledge), Transport::kRc);
  EXPECT_EQ(transport_of(Opcode::kUcWriteOnly), Transport::kUc);
  EXPECT_EQ(transport_of(Opcode::kUdSendOnlyImm), Transport::kUd);
  EXPECT_EQ(opcode_name(Opcode::kRcWriteFirst), "RC_RDMA_WRITE_FIRST");
  EXPECT_EQ(opcode_name(Opcode::kUdSendOnlyImm), "UD_SEND_ONLY_WITH_IMMEDIATE");
  EXPECT_EQ(opcode_name(static_cast<Opcode>(0x80)), "UNSUPPORTED");

  std::set<std::string> names;
  for (int raw = 0; raw < 256; ++raw) {
    if (!is_supported(static_cast<uint8_t>(raw))) continue;
    const auto op = static_cast<Opcode>(raw);
    const std::string name(opcode_name(op));
    EXPECT_TRUE(names.insert(name).second) << "duplicate name " << name;
    const std::string prefix = name.substr(0, 3);
    const Transport t = transport_of(op);
    if (t == Transport::kCnp) continue;  // "CNP" has no transport prefix
    EXPECT_EQ(prefix, t == Transport::kRc ? "RC_" : t == Transport::kUc ? "UC_" : "UD_") << name;
  }
  EXPECT_EQ(names.size(), 33u);
}

TEST(WireOpcode, CnpIsBthPlusSixteenReservedBytes) {
  // RoCEv2 annex A17.9.3: opcode 0x81, transport bits 100, no extended headers, no payload.
  EXPECT_EQ(static_cast<int>(Opcode::kCnp), 0x81);
  EXPECT_EQ(transport_of(Opcode::kCnp), Transport::kCnp);
  EXPECT_EQ(opcode_name(Opcode::kCnp), "CNP");
  const HeaderChain c = header_chain(Opcode::kCnp);
  EXPECT_FALSE(c.deth || c.reth || c.aeth || c.immdt || c.payload);
  EXPECT_TRUE(c.cnp_reserved);
  // No other opcode carries the reserved block.
  for (int raw = 0; raw < 256; ++raw) {
    if (!is_supported(static_cast<uint8_t>(raw)) || raw == 0x81) continue;
    EXPECT_FALSE(header_chain(static_cast<Opcode>(raw)).cnp_reserved) << raw;
  }
}

}  // namespace
}  // namespace bifrost::wire
