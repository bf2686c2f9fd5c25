#include "bifrost/wire/demo_exchange.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "bifrost/wire/frame.h"
#include "bifrost/wire/pcap.h"
#include "test_util.h"

namespace bifrost::wire {
namespace {

TEST(WireDemoExchange, UsesEverySupportedOpcode) {
  std::set<int> used;
  for (const DemoFrame& f : demo_exchange()) used.insert(static_cast<int>(f.roce.bth.opcode));
  for (int raw = 0; raw < 256; ++raw) {
    // The scripted exchange is QP traffic only; CNPs come from the NIC's DCQCN notification
    // point and are covered by the codec, frame and tshark tests.
    const bool expected = is_supported(static_cast<uint8_t>(raw)) && raw != 0x81;
    EXPECT_EQ(used.count(raw) == 1, expected) << raw;
  }
}

TEST(WireDemoExchange, ContainsEveryAckKindAndNakCode) {
  std::set<std::pair<AckKind, uint8_t>> seen;
  for (const DemoFrame& f : demo_exchange()) {
    if (f.roce.bth.opcode != Opcode::kRcAcknowledge) continue;
    const AckKind kind = ack_kind(f.roce.aeth);
    seen.insert({kind, kind == AckKind::kAck ? 0 : syndrome_value(f.roce.aeth)});
  }
  EXPECT_TRUE(seen.count({AckKind::kAck, 0}));
  EXPECT_TRUE(seen.count({AckKind::kRnrNak, 14}));
  EXPECT_TRUE(seen.count({AckKind::kNak, uint8_t(NakCode::kPsnSequenceError)}));
  EXPECT_TRUE(seen.count({AckKind::kNak, uint8_t(NakCode::kRemoteAccessError)}));
}

TEST(WireDemoExchange, RcPsnsWrapFromMaxToZeroInsideOneMessage) {
  const auto frames = demo_exchange();
  std::vector<uint32_t> psns;
  for (const DemoFrame& f : frames) {
    if (transport_of(f.roce.bth.opcode) == Transport::kRc &&
        f.roce.bth.opcode != Opcode::kRcAcknowledge && f.ip.src_ip == 0x0A000001) {
      psns.push_back(f.roce.bth.psn);
    }
  }
  ASSERT_GE(psns.size(), 3u);
  EXPECT_EQ(psns[0], 0xFFFFFEu);
  EXPECT_EQ(psns[1], 0xFFFFFFu);
  EXPECT_EQ(psns[2], 0u);
  EXPECT_EQ(frames[0].roce.bth.opcode, Opcode::kRcSendFirst);
  EXPECT_EQ(frames[2].roce.bth.opcode, Opcode::kRcSendLast);
  EXPECT_EQ(psn_diff(psns[2], psns[1]), 1);
}

TEST(WireDemoExchange, FramesAreOrderedAndConsistent) {
  const auto frames = demo_exchange();
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const DemoFrame& f = frames[i];
    SCOPED_TRACE(i);
    if (i > 0) {
      EXPECT_GT(f.time_ns, frames[i - 1].time_ns);
    }
    EXPECT_FALSE(f.step.empty());
    EXPECT_EQ(f.roce.bth.pad_count, (4 - f.payload.size() % 4) % 4);
    EXPECT_LE(f.payload.size(), 256u);
  }
}

TEST(WireDemoExchange, PcapDecodesBackToTheScript) {
  test::ScratchDir dir;
  const std::string path = dir.file("demo.pcap");
  const auto frames = demo_exchange();
  write_demo_pcap(path, frames);
  PcapReader reader(path);
  std::size_t n = 0;
  while (const auto record = reader.next()) {
    ASSERT_LT(n, frames.size());
    const DemoFrame& want = frames[n++];
    EXPECT_EQ(record->time_ns, want.time_ns);
    const auto got = decode_ethernet_frame(record->data);
    ASSERT_TRUE(got.ok()) << "frame " << n << ": " << describe(got.error);
    EXPECT_EQ(got.value.eth, want.eth);
    EXPECT_EQ(got.value.ip, want.ip);
    EXPECT_EQ(got.value.roce.headers, want.roce);
    EXPECT_EQ(std::vector<std::byte>(got.value.roce.payload.begin(), got.value.roce.payload.end()),
              want.payload);
  }
  EXPECT_EQ(n, frames.size());
}

}  // namespace
}  // namespace bifrost::wire
