// The host as the world's packet port: send queues at the DSCP's priority, what arrives goes
// to the receive handler, and the line-rate flow helper's bookkeeping.
#include "bifrost/net/host.h"

#include <gtest/gtest.h>

#include "bifrost/core/error.h"
#include "bifrost/net/line_rate_flows.h"
#include "net/net_fixture.h"

namespace bifrost::net {
namespace {

TEST(Host, PacketPortSendDeliversThePacketUnchanged) {
  testing::Network net;
  Host& a = net.add_host(0);
  Host& b = net.add_host(1);
  net.connect(a.port(), b.port(), Rate::Gbps(25), Time::us(2));
  world::PacketPtr got;
  Time when;
  b.set_receive_handler([&](world::PacketPtr p) {
    got = std::move(p);
    when = net.kernel.now();
  });
  world::PacketPort& port = a;
  world::PacketPtr p = testing::data_packet(a.address(), b.address(), 100, 5, 4242);
  p->roce.bth.psn = 77;
  p->ecn = 2;
  port.send(std::move(p));
  net.kernel.run();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->roce.bth.psn, 77u);
  EXPECT_EQ(got->src.port, 4242);
  EXPECT_EQ(got->dscp, 40);
  EXPECT_EQ(got->ecn, 2);
  // 100-byte MIDDLE: frame 62 + 100 = 162, wire 182 bytes at 25 Gb/s (320 ps/byte) = 58,240 ps.
  EXPECT_EQ(when, Time::ps(58'240 + 2'000'000));
  EXPECT_EQ(a.nic().counters().tx_packets[5], 1u);
  EXPECT_EQ(a.counters().sent_packets, 1u);
  EXPECT_EQ(b.counters().received_packets, 1u);
  EXPECT_EQ(b.counters().received_bytes, 162u);
}

TEST(Host, DscpTableChoosesTheNicQueue) {
  testing::Network net;
  HostConfig c;
  c.addresses = {testing::host_ip(0), testing::host_ip(7)};
  c.dscp.set(46, 6);  // EF to priority 6 instead of 5
  Host& a = net.hosts.emplace_back(net.kernel, c);
  Host& b = net.add_host(1);
  net.connect(a.port(), b.port(), Rate::Gbps(100), Time::zero());
  world::PacketPtr p = testing::data_packet(a.addresses()[1], b.address(), 8);
  p->dscp = 46;
  a.send(std::move(p));
  net.kernel.run();
  EXPECT_EQ(a.nic().counters().tx_packets[6], 1u);
  EXPECT_EQ(b.dropped_without_handler(), 1u) << "no handler: counted and dropped";
}

TEST(Host, ConfigurationErrors) {
  sim::EventKernel kernel;
  EXPECT_THROW(Host(kernel, HostConfig{}), Error) << "no address";
  DscpMap map;
  EXPECT_EQ(map.priority(24), 3);
  EXPECT_EQ(map.priority(63), 7);
  EXPECT_THROW(map.set(64, 1), Error);
  EXPECT_THROW(map.set(1, 8), Error);
}

TEST(LineRateFlows, CutsAFlowIntoRdmaWritePackets) {
  testing::Network net;
  Host& a = net.add_host(0);
  Host& b = net.add_host(1);
  net.connect(a.port(), b.port(), Rate::Gbps(100), Time::zero());
  std::vector<world::PacketPtr> seen;
  LineRateFlows flows(net.kernel, 1000);
  const uint32_t id = flows.add(LineRateFlowSpec{
      .src = &a, .dst = &b, .bytes = 2500, .priority = 2, .src_port = 777, .ecn_capable = true});
  // Watch the wire instead of the sink: wrap b's handler after the flow installed its own.
  b.set_receive_handler([&](world::PacketPtr p) { seen.push_back(std::move(p)); });
  net.kernel.run();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0]->roce.bth.opcode, wire::Opcode::kRcWriteFirst);
  EXPECT_EQ(seen[1]->roce.bth.opcode, wire::Opcode::kRcWriteMiddle);
  EXPECT_EQ(seen[2]->roce.bth.opcode, wire::Opcode::kRcWriteLast);
  EXPECT_EQ(seen[0]->roce.reth.dma_length, 2500u);
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(seen[i]->roce.bth.psn, i);
    EXPECT_EQ(seen[i]->roce.bth.dest_qp, id);
    EXPECT_EQ(seen[i]->src.port, 777);
    EXPECT_EQ(seen[i]->dst.port, wire::kRoceV2UdpPort);
    EXPECT_EQ(seen[i]->dscp, 16);
    EXPECT_EQ(seen[i]->ecn, 2);
  }
  EXPECT_EQ(seen[2]->payload.length, 500u);
  EXPECT_EQ(flows.flow(id).packets, 3u);
  EXPECT_EQ(flows.flow(id).bytes_sent, 2500u);
}

TEST(LineRateFlows, SingleSmallFlowIsOneWriteOnlyAndReportsCompletion) {
  testing::Network net;
  Host& a = net.add_host(0);
  Host& b = net.add_host(1);
  net.connect(a.port(), b.port(), Rate::Gbps(100), Time::us(1));
  LineRateFlows flows(net.kernel);
  int completions = 0;
  Time fct;
  flows.set_completion_handler([&](const LineRateFlowRecord& r) {
    ++completions;
    fct = r.completion_time();
  });
  flows.add(LineRateFlowSpec{.src = &a, .dst = &b, .bytes = 1, .start = Time::us(7)});
  net.kernel.run();
  EXPECT_EQ(completions, 1);
  // WRITE ONLY with 1 byte: 14 + 20 + 8 + 28 + 1 + 3 + 4 + 4 = 82 frame bytes, 102 wire bytes
  // = 8,160 ps at 100 Gb/s; + 1 us.
  EXPECT_EQ(fct, Time::ps(1'008'160));
  EXPECT_EQ(flows.completed(), 1u);
}

TEST(LineRateFlows, RejectsBadSpecsAndSharedHosts) {
  testing::Network net;
  Host& a = net.add_host(0);
  Host& b = net.add_host(1);
  LineRateFlows flows(net.kernel);
  EXPECT_THROW(flows.add(LineRateFlowSpec{.src = &a, .dst = &a, .bytes = 5}), Error);
  EXPECT_THROW(flows.add(LineRateFlowSpec{.src = &a, .dst = &b, .bytes = 0}), Error);
  EXPECT_THROW(flows.add(LineRateFlowSpec{.src = &a, .dst = &b, .bytes = 5, .priority = 8}), Error);
  flows.add(LineRateFlowSpec{.src = &a, .dst = &b, .bytes = 5});
  LineRateFlows other(net.kernel);
  EXPECT_THROW(other.add(LineRateFlowSpec{.src = &a, .dst = &b, .bytes = 5}), Error);
  EXPECT_THROW(LineRateFlows(net.kernel, 0), Error);
}

}  // namespace
}  // namespace bifrost::net
