// The QP-context cache seen from outside the NIC: with more active QPs than contexts fit, every
// packet misses and waits for its context, so throughput falls; with fewer it does not.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bifrost/rnic/connect.h"
#include "bifrost/rnic/work_request.h"
#include "bifrost/sim/nic_pair.h"

namespace bifrost::rnic {
namespace {

using sim::NicPair;

// Goodput in Gb/s of `qps` QP pairs each writing `messages` x 8 KB round-robin, through a
// receiver whose pipeline serves 200 Gb/s and whose cache holds 256 IRN-sized contexts.
double goodput_gbps(uint32_t qps, uint32_t messages) {
  sim::NicPairConfig config;
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
  for (uint32_t i = 0; i < qps; ++i) {
    auto& a = pair.a();
    auto& b = pair.b();
    QueuePair& s = a.device->create_qp(a.pd, QpType::rc, *a.cq, *a.cq);
    QueuePair& r = b.device->create_qp(b.pd, QpType::rc, *b.cq, *b.cq);
    QpConnection c;
    c.dest_ip = b.device->gids().front();
    c.dest_qp_num = r.qp_num();
    connect_qp(s, c);
    c.dest_ip = a.device->gids().front();
    c.dest_qp_num = s.qp_num();
    connect_qp(r, c);
    senders.push_back(&s);
  }
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

}  // namespace
}  // namespace bifrost::rnic
