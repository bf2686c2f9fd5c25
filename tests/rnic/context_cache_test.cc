// The QP-context cache seen from outside the NIC: with more active QPs than contexts fit, every
// packet misses and waits for its context, so throughput falls; with fewer it does not.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bifrost/rnic/work_request.h"
#include "bifrost/sim/nic_pair.h"

namespace bifrost::rnic {
namespace {

using sim::NicPair;

// Goodput in Gb/s of `qps` QP pairs each writing `messages` x 8 KB round-robin (`burst_packets`
// per turn), through a receiver whose pipeline serves 200 Gb/s and whose cache holds 256
// IRN-sized contexts.
double goodput_gbps(uint32_t qps, uint32_t messages, uint32_t burst_packets = 1) {
  sim::NicPairConfig config;
  config.device.data_path.burst_packets = burst_packets;
  config.device.recovery.kind = recovery::EngineKind::irn;
  // A buffer and timeouts large enough that the backlog of misses costs time, not losses.
  config.device.receive_pipeline =
      ReceivePipelineConfig{Rate::Gbps(200), Time::zero(), Bytes::MiB(64)};
  config.device.recovery.rto_low = config.device.recovery.rto_high = Time::ms(50);
  // The cache holds 256 contexts of the engine's size.
  const Bytes irn_state(20 + 5 * ((config.device.recovery.bdp_packets + 7) / 8));
  config.device.context_cache = qp_cache_profile::cx6_like(irn_state);
  NicPair pair(config);
  std::vector<QueuePair*> senders;
  for (uint32_t i = 0; i < qps; ++i) senders.push_back(pair.add_qp_pair().a);
  constexpr uint32_t kBytes = 8192;
  for (uint32_t m = 0; m < messages; ++m) {
    for (QueuePair* s : senders) {
      SendWr wr;
      wr.opcode = WrOpcode::rdma_write;
      wr.sge = Sge{NicPair::kBufferBase, kBytes, pair.a().mr->lkey};
      wr.remote_addr = NicPair::kBufferBase;
      wr.rkey = pair.b().mr->rkey;
      s->post_send(wr);
    }
  }
  pair.kernel().run();
  const auto done = pair.a().poll();
  EXPECT_EQ(done.size(), size_t{qps} * messages);
  for (const auto& wc : done) EXPECT_EQ(wc.status, WcStatus::success);
  EXPECT_EQ(pair.b().device->data_path_counters().rx_pipeline_drops, 0u);
  const double bits = 8.0 * kBytes * messages * qps;
  // Until the last completion: idle timers may run the clock on after it.
  return bits / done.back().hw_timestamp.seconds() / 1e9;
}

TEST(ContextCache, ThroughputCollapsesPastTheContextsThatFit) {
  const double few = goodput_gbps(64, 16);
  const double many = goodput_gbps(1024, 1);
  RecordProperty("goodput_64_qps_gbps", std::to_string(few));
  RecordProperty("goodput_1024_qps_gbps", std::to_string(many));
  EXPECT_GT(few, 80.0) << "64 QPs fit in the cache: near line rate";
  // Round-robin over 1024 QPs misses on every packet: a 1 us context fetch per 1 KB packet
  // caps the receiver near 8 Gb/s.
  EXPECT_LT(many, 9.0);
  EXPECT_GT(many, 6.0);
}

TEST(ContextCache, BurstsOfAMessageMissOncePerMessage) {
  // Eight-packet bursts: one 1 us miss per 8 KB (0.66 us on the wire at 100 Gb/s), so the
  // receiver runs at about 8 KB per (1 us + 8 x 41 ns of service) = 49 Gb/s instead of 8.
  const double bursts = goodput_gbps(1024, 1, 8);
  RecordProperty("goodput_1024_qps_burst8_gbps", std::to_string(bursts));
  EXPECT_GT(bursts, 35.0);
  EXPECT_LT(bursts, 60.0);
}

// The destination QP of every data packet on the wire, a to b, in order.
std::vector<uint32_t> wire_order(uint32_t burst_packets) {
  sim::NicPairConfig config;
  config.device.data_path.burst_packets = burst_packets;
  // One packet in the port at a time, so the scheduler picks every packet.
  config.device.port_queue_packets = 1;
  NicPair pair(config);
  std::vector<uint32_t> order;
  pair.wire().set_drop_filter(0, [&order](const world::Packet& p) {
    order.push_back(p.roce.bth.dest_qp);
    return false;
  });
  QueuePair* second = pair.add_qp_pair().a;
  for (QueuePair* qp : {pair.a().qp, second}) {
    SendWr wr;
    wr.opcode = WrOpcode::rdma_write;
    wr.sge = Sge{NicPair::kBufferBase, 8192, pair.a().mr->lkey};  // 8 packets at MTU 1024
    wr.remote_addr = NicPair::kBufferBase;
    wr.rkey = pair.b().mr->rkey;
    qp->post_send(wr);
  }
  pair.kernel().run();
  return order;
}

size_t turns(const std::vector<uint32_t>& order) {
  size_t changes = 0;
  for (size_t i = 1; i < order.size(); ++i) changes += order[i] != order[i - 1] ? 1 : 0;
  return changes;
}

TEST(Scheduler, PacketRoundRobinOrBurstsPerTurn) {
  // The first QP sends a few packets before the second QP posts (the port takes them as it
  // starts each); from then on packet round-robin alternates, while 4-packet bursts give each
  // QP four packets per turn: A1-4, B1-4, A5-8, B5-8.
  const std::vector<uint32_t> rr = wire_order(1);
  ASSERT_EQ(rr.size(), 16u);
  EXPECT_GE(turns(rr), 8u) << testing::PrintToString(rr);
  const std::vector<uint32_t> bursts = wire_order(4);
  ASSERT_EQ(bursts.size(), 16u);
  EXPECT_EQ(turns(bursts), 3u) << testing::PrintToString(bursts);
}

}  // namespace
}  // namespace bifrost::rnic
