// Frame sizes on the wire, with the numbers worked out by hand from the rule in docs/net.md:
// Ethernet 14 + IPv4 20 + UDP 8 + transport headers + payload + pad to 4 + ICRC 4 + FCS 4,
// at least 64; the link adds 20 bytes of preamble, start delimiter and inter-frame gap.
#include "bifrost/net/frame.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "bifrost/net/drop_reason.h"

namespace bifrost::net {
namespace {

using wire::Opcode;

TEST(FrameBytes, RdmaWritePacketsOfAFlow) {
  // FIRST carries BTH 12 + RETH 16: 14 + 20 + 8 + 28 + 1024 + 4 + 4 = 1102.
  EXPECT_EQ(data_frame_bytes(Opcode::kRcWriteFirst, 1024), 1102u);
  // MIDDLE and LAST carry only the BTH: 14 + 20 + 8 + 12 + 1024 + 4 + 4 = 1086.
  EXPECT_EQ(data_frame_bytes(Opcode::kRcWriteMiddle, 1024), 1086u);
  EXPECT_EQ(data_frame_bytes(Opcode::kRcWriteLast, 784), 846u);  // 62 + 784
  // ONLY = BTH + RETH, no payload: 14 + 20 + 8 + 28 + 4 + 4 = 78.
  EXPECT_EQ(data_frame_bytes(Opcode::kRcWriteOnly, 0), 78u);
}

TEST(FrameBytes, OptionalHeadersFollowTheOpcode) {
  // UD SEND: BTH 12 + DETH 8, 100 bytes: 14 + 20 + 8 + 20 + 100 + 4 + 4 = 170.
  EXPECT_EQ(data_frame_bytes(Opcode::kUdSendOnly, 100), 170u);
  // ACK: BTH 12 + AETH 4: 14 + 20 + 8 + 16 + 4 + 4 = 66.
  EXPECT_EQ(data_frame_bytes(Opcode::kRcAcknowledge, 0), 66u);
  // WRITE LAST with immediate: BTH 12 + ImmDt 4, 5 bytes padded to 8: 42 + 16 + 8 + 8 = 74.
  EXPECT_EQ(data_frame_bytes(Opcode::kRcWriteLastImm, 5), 74u);
}

TEST(FrameBytes, PadsPayloadToFourBytes) {
  // 1 payload byte + 3 pad bytes: 14 + 20 + 8 + 12 + 4 + 4 + 4 = 66.
  EXPECT_EQ(data_frame_bytes(Opcode::kRcWriteMiddle, 1), 66u);
  EXPECT_EQ(data_frame_bytes(Opcode::kRcWriteMiddle, 4), 66u);
  EXPECT_EQ(data_frame_bytes(Opcode::kRcWriteMiddle, 5), 70u);
}

TEST(FrameBytes, ShortFramesArePaddedTo64Bytes) {
  // SEND ONLY without payload would be 14 + 20 + 8 + 12 + 4 + 4 = 62 bytes.
  EXPECT_EQ(data_frame_bytes(Opcode::kRcSendOnly, 0), 64u);
}

TEST(FrameBytes, PacketOverloadReadsOpcodeAndPayloadLength) {
  world::PacketPtr p = world::make_packet();
  p->roce.bth.opcode = Opcode::kRcWriteFirst;
  p->payload.length = 1024;
  EXPECT_EQ(data_frame_bytes(*p), 1102u);
}

TEST(PauseFrame, CarriesQuantaForEnabledPrioritiesOnly) {
  const ControlFrame f = make_pause(0b1000'1000, 0x1234);
  EXPECT_EQ(f.kind, ControlKind::kPause);
  EXPECT_EQ(f.class_enable, 0b1000'1000);
  for (int p = 0; p < kPriorities; ++p) {
    EXPECT_EQ(f.pause_quanta[p], (p == 3 || p == 7) ? 0x1234 : 0) << "priority " << p;
  }
  EXPECT_EQ(f.frame_bytes(), 64u);
}

TEST(PauseFrame, QuantumIs512BitTimesAtTheLinkRate) {
  // 512 bits at 100 Gb/s = 5.12 ns; 65535 quanta = 335,539,200 ps.
  EXPECT_EQ(pause_duration(1, Rate::Gbps(100)), Time::ps(5'120));
  EXPECT_EQ(pause_duration(0xFFFF, Rate::Gbps(100)), Time::ps(335'539'200));
  // At 25 Gb/s one quantum is 20.48 ns.
  EXPECT_EQ(pause_duration(0xFFFF, Rate::Gbps(25)), Time::ps(1'342'156'800));
  EXPECT_EQ(pause_duration(0, Rate::Gbps(100)), Time::zero());
}

TEST(DropReason, EveryReasonHasItsOwnName) {
  std::set<std::string> names;
  for (std::size_t r = 0; r < kDropReasonCount; ++r) {
    names.emplace(drop_reason_name(static_cast<DropReason>(r)));
  }
  EXPECT_EQ(names.size(), kDropReasonCount);
  EXPECT_EQ(names.count("unknown"), 0u);
  EXPECT_EQ(drop_reason_name(DropReason::kHeadroomExceeded), "headroom_exceeded");
}

TEST(DropCounters, CountPacketsAndBytesByReason) {
  DropCounters c;
  c.add(DropReason::kNoRoute, 100);
  c.add(DropReason::kNoRoute, 50);
  c.add(DropReason::kLinkDown, 7);
  EXPECT_EQ(c[DropReason::kNoRoute], 2u);
  EXPECT_EQ(c[DropReason::kLinkDown], 1u);
  EXPECT_EQ(c.total_packets(), 3u);
  EXPECT_EQ(c.total_bytes(), 157u);
}

}  // namespace
}  // namespace bifrost::net
