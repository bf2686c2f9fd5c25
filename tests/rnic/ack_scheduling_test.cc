// When a responder's ACKs leave: within DataPathConfig::ack_delay of the packet they
// acknowledge, and ahead of every data packet waiting in the NIC's transmit scheduler, so that
// thousands of busy QPs on the responder's side cannot hold an ACK back.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "bifrost/core/rate.h"
#include "bifrost/wire/frame.h"
#include "data_path_support.h"

namespace bifrost::rnic {
namespace {

using namespace bifrost::rnic::testing;

struct Seen {
  Time at;
  uint32_t psn = 0;
  uint64_t frame_bytes = 0;
};

// Records, without dropping anything, when each packet of one kind for one QP is handed to
// the wire.
struct Recorder {
  world::Scheduler* clock = nullptr;
  uint32_t dest_qp = 0;
  bool acks = false;
  std::vector<Seen> seen;

  bool operator()(const world::Packet& p) {
    const bool ack = p.roce.bth.opcode == wire::Opcode::kRcAcknowledge;
    if (ack == acks && p.roce.bth.dest_qp == dest_qp) {
      seen.push_back(
          {clock->now(), p.roce.bth.psn, wire::ethernet_frame_size(p.roce, p.payload.length)});
    }
    return false;
  }
};

Time frame_time(uint32_t payload, Rate rate) {
  wire::RoceHeaders h;
  h.bth.opcode = wire::Opcode::kRcWriteMiddle;
  return serialization_time(Bytes(wire::ethernet_frame_size(h, payload)), rate);
}

TEST(AckScheduling, EveryPacketIsAcknowledgedWithinTheDelayBound) {
  for (const Time bound : {Time::us(3), Time::us(8), Time::us(40)}) {
    SCOPED_TRACE(::testing::Message() << "ack_delay " << bound.microseconds() << " us");
    NicPairConfig config;
    config.device.data_path.ack_every_packets = 0;  // AckReq only: the bound does the rest
    config.device.data_path.ack_delay = bound;
    NicPair pair(config);
    NicPair::Side& a = pair.a();
    NicPair::Side& b = pair.b();
    a.device->set_rate_limit(*a.qp, Rate::Mbps(100));  // a packet every ~90 us
    Recorder data{&pair.kernel(), b.qp->qp_num(), false, {}};
    Recorder acks{&pair.kernel(), a.qp->qp_num(), true, {}};
    pair.wire().set_drop_filter(0, [&data](const world::Packet& p) { return data(p); });
    pair.wire().set_drop_filter(1, [&acks](const world::Packet& p) { return acks(p); });
    a.qp->post_send(make_remote(1, WrOpcode::rdma_write, a, NicPair::kBufferBase, 16 * 1024,
                                NicPair::kBufferBase, b.mr->rkey));
    pair.kernel().run();

    ASSERT_EQ(data.seen.size(), 16u);
    Time wire_free = Time::zero();  // a's wire serializes one packet after the other
    for (const Seen& d : data.seen) {
      wire_free =
          std::max(d.at, wire_free) + serialization_time(Bytes(d.frame_bytes), config.wire.rate);
      const Time arrival = wire_free + config.wire.delay;
      const auto covering = std::find_if(acks.seen.begin(), acks.seen.end(), [&](const Seen& ack) {
        return wire::psn_diff(ack.psn, d.psn) >= 0;
      });
      ASSERT_NE(covering, acks.seen.end()) << "PSN " << d.psn << " never acknowledged";
      EXPECT_GE(covering->at, arrival) << "PSN " << d.psn;
      EXPECT_LE(covering->at, arrival + bound) << "PSN " << d.psn;
    }
    // Every ACK but the last (the 16th packet asks for its own) came from the bound.
    EXPECT_EQ(b.device->data_path_counters().delayed_acks, acks.seen.size() - 1);
    EXPECT_GE(acks.seen.size(), 8u);
    EXPECT_EQ(a.device->data_path_counters().timeouts, 0u);
  }
}

TEST(AckScheduling, WithoutTheBoundOnlyAckReqIsAnswered) {
  NicPairConfig config;
  config.device.data_path.ack_every_packets = 0;
  config.device.data_path.ack_delay = Time::zero();
  NicPair pair(config);
  NicPair::Side& a = pair.a();
  NicPair::Side& b = pair.b();
  a.device->set_rate_limit(*a.qp, Rate::Mbps(100));
  Recorder acks{&pair.kernel(), a.qp->qp_num(), true, {}};
  pair.wire().set_drop_filter(1, [&acks](const world::Packet& p) { return acks(p); });
  a.qp->post_send(make_remote(1, WrOpcode::rdma_write, a, NicPair::kBufferBase, 16 * 1024,
                              NicPair::kBufferBase, b.mr->rkey));
  pair.kernel().run();
  ASSERT_EQ(acks.seen.size(), 1u);
  EXPECT_EQ(acks.seen[0].psn, 15u);
  EXPECT_EQ(b.device->data_path_counters().delayed_acks, 0u);
}

// The responder's side is saturated by 3,000 QPs that each have a large WRITE going the other
// way. An ACK still leaves behind at most what is already in the NIC's port queue: ACK-class
// packets go ahead of every QP in the transmit order (device_data_path.cc). Under round-robin
// it would wait for ~3,000 data packets (~270 us at 100 Gb/s).
TEST(AckScheduling, AnAckOvertakesThousandsOfBackloggedQps) {
  NicPairConfig config;
  config.cq_entries = 1 << 16;
  NicPair pair(config);
  NicPair::Side& a = pair.a();
  NicPair::Side& b = pair.b();
  for (int i = 0; i < 3000; ++i) {
    const NicPair::QpPair extra = pair.add_qp_pair();
    extra.b->post_send(make_remote(i, WrOpcode::rdma_write, b, NicPair::kBufferBase, 256 * 1024,
                                   NicPair::kBufferBase, a.mr->rkey));
  }
  Recorder data{&pair.kernel(), b.qp->qp_num(), false, {}};
  Recorder acks{&pair.kernel(), a.qp->qp_num(), true, {}};
  pair.wire().set_drop_filter(0, [&data](const world::Packet& p) { return data(p); });
  pair.wire().set_drop_filter(1, [&acks](const world::Packet& p) { return acks(p); });
  pair.kernel().at(Time::us(50), [&] {
    a.qp->post_send(make_remote(7, WrOpcode::rdma_write, a, NicPair::kBufferBase, 512,
                                NicPair::kBufferBase, b.mr->rkey));
  });
  pair.kernel().run_until(Time::us(200));

  ASSERT_EQ(data.seen.size(), 1u);
  ASSERT_EQ(acks.seen.size(), 1u);
  const Rate rate = config.wire.rate;
  const Time arrival = data.seen[0].at + serialization_time(Bytes(data.seen[0].frame_bytes), rate) +
                       config.wire.delay;
  // The port holds DeviceConfig::port_queue_packets (2) data packets the ACK cannot overtake.
  EXPECT_LE(acks.seen[0].at, arrival + 3 * frame_time(1024, rate));
  EXPECT_GT(b.device->data_path_counters().tx_packets, 1000u);  // b's port really was busy
}

// DataPathConfig::ack_traffic_class: ACKs leave in their own class, READ responses (data) in
// the QP's; unset, ACKs keep the QP's class as RoCE does.
TEST(AckScheduling, AcksTakeTheConfiguredTrafficClassAndReadResponsesTheQps) {
  for (const bool own_class : {false, true}) {
    SCOPED_TRACE(own_class ? "ack_traffic_class = 48 << 2" : "unset");
    NicPairConfig config;
    if (own_class) config.device.data_path.ack_traffic_class = 48 << 2;
    NicPair pair(config);
    NicPair::Side& a = pair.a();
    NicPair::Side& b = pair.b();
    std::vector<uint8_t> ack_dscps;
    std::vector<uint8_t> response_dscps;
    pair.wire().set_drop_filter(1, [&](const world::Packet& p) {
      (p.roce.bth.opcode == wire::Opcode::kRcAcknowledge ? ack_dscps : response_dscps)
          .push_back(p.dscp);
      return false;
    });
    a.qp->post_send(make_remote(1, WrOpcode::rdma_write, a, NicPair::kBufferBase, 8 * 1024,
                                NicPair::kBufferBase, b.mr->rkey));
    a.qp->post_send(make_remote(2, WrOpcode::rdma_read, a, NicPair::kBufferBase, 8 * 1024,
                                NicPair::kBufferBase, b.mr->rkey));
    pair.kernel().run();
    ASSERT_FALSE(ack_dscps.empty());
    ASSERT_FALSE(response_dscps.empty());
    for (const uint8_t d : ack_dscps) EXPECT_EQ(d, own_class ? 48 : 0);  // the QP's: class 0
    for (const uint8_t d : response_dscps) EXPECT_EQ(d, 0);
  }
}

}  // namespace
}  // namespace bifrost::rnic
