// N:1 incast through one switch, one sender per ingress port. With PFC: no drops, fair shares,
// the bottleneck never idles. Without PFC and with a small buffer: drops, counted by reason,
// and every packet is either delivered or counted as dropped.
#include <gtest/gtest.h>

#include <vector>

#include "bifrost/core/fairness.h"
#include "bifrost/net/flowctl/pfc.h"
#include "bifrost/net/line_rate_flows.h"
#include "net/net_fixture.h"

namespace bifrost::net {
namespace {

constexpr int kSenders = 8;
constexpr int kPrio = 3;
constexpr uint64_t kFlowBytes = 1024 * 1024;  // 1024 packets of 1024 bytes

struct Incast {
  testing::Network net;
  Switch* sw = nullptr;
  std::vector<PfcPair> pfc;
  LineRateFlows flows{net.kernel, 1024};
  std::vector<double> delivered_at_first_completion;

  Incast(SharedBufferConfig buffer, bool with_pfc) {
    SwitchConfig c;
    c.ports = kSenders + 1;
    c.processing_latency = Time::ns(500);
    c.buffer = buffer;
    c.seed = 3;
    sw = &net.add_switch(c);
    Host& receiver = net.add_host(kSenders);
    net.connect(sw->port(kSenders), receiver.port(), Rate::Gbps(100), Time::us(1));
    sw->routes().add_route(receiver.address(), {kSenders});
    for (int i = 0; i < kSenders; ++i) {
      Host& h = net.add_host(i);
      const auto port = static_cast<uint32_t>(i);
      net.connect(h.port(), sw->port(port), Rate::Gbps(100), Time::us(1));
      sw->routes().add_route(h.address(), {port});
      if (with_pfc) {
        PfcConfig p;
        p.xoff = Threshold::fixed(Bytes(30'000));
        p.headroom = Bytes(34'660);  // pfc_headroom_bound for this link (see pfc_headroom_test)
        pfc.push_back(install_pfc(net.kernel, p, *sw, port, h.nic()));
      }
      flows.add(
          LineRateFlowSpec{.src = &h, .dst = &receiver, .bytes = kFlowBytes, .priority = kPrio});
    }
    flows.set_completion_handler([this](const LineRateFlowRecord&) {
      if (!delivered_at_first_completion.empty()) return;
      for (const auto& f : flows.flows()) {
        delivered_at_first_completion.push_back(static_cast<double>(f.bytes_received));
      }
    });
    net.kernel.run();
  }
};

TEST(Incast, WithPfcNothingIsDroppedAndSendersShareFairly) {
  Incast t(SharedBufferConfig{.total = Bytes::MiB(1)}, true);
  EXPECT_EQ(t.sw->counters().drops.total_packets(), 0u);
  EXPECT_EQ(t.flows.completed(), static_cast<std::size_t>(kSenders));
  ASSERT_EQ(t.delivered_at_first_completion.size(), static_cast<std::size_t>(kSenders));
  EXPECT_GE(jain_fairness_index(t.delivered_at_first_completion), 0.99);
  uint64_t pauses = 0;
  for (const PfcPair& p : t.pfc) pauses += p.ingress->counters().pause_sent[kPrio];
  EXPECT_GT(pauses, static_cast<uint64_t>(kSenders)) << "every sender was paused, repeatedly";
  for (uint32_t port = 0; port < kSenders; ++port) {
    EXPECT_GT(t.pfc[port].gate->paused_time(kPrio), Time::zero());
    EXPECT_LE(t.sw->buffer().peak_headroom(port, kPrio), Bytes(34'660));
  }
  // The bottleneck never idles: 8 flows of 1,132,560 wire bytes (1122 + 1023 x 1106) take
  // 9,060,480 x 80 ps = 724,838,400 ps at 100 Gb/s, plus ~3.6 us of path delay.
  Time last = Time::zero();
  for (const auto& f : t.flows.flows()) last = std::max(last, f.last_byte_received);
  EXPECT_LT(last, Time::ps(724'838'400 + 4'000'000));
}

// Frames the senders put on the wire, delivered or dropped.
void expect_conservation(const Incast& t) {
  uint64_t sent = 0;
  uint64_t received = 0;
  for (const auto& f : t.flows.flows()) {
    sent += f.packets;
    received += f.packets_received;
  }
  EXPECT_EQ(received + t.sw->counters().drops.total_packets(), sent);
}

TEST(Incast, WithoutPfcASmallBufferDropsAtTheDynamicThreshold) {
  Incast t(SharedBufferConfig{.total = Bytes(100'000), .alpha = 1.0}, false);
  const DropCounters& d = t.sw->counters().drops;
  EXPECT_GT(d[DropReason::kDynamicThreshold], 1000u);
  EXPECT_EQ(d.total_packets(), d[DropReason::kDynamicThreshold]) << "the only reason here";
  EXPECT_EQ(t.sw->port_counters(kSenders).drops[DropReason::kDynamicThreshold],
            d[DropReason::kDynamicThreshold]);
  expect_conservation(t);
  EXPECT_LT(t.flows.completed(), static_cast<std::size_t>(kSenders)) << "no transport resends";
}

TEST(Incast, WithoutPfcAndWithoutAUsefulThresholdTheBufferRunsOut) {
  // alpha = 1e9 lets the queue take every free byte but the last: the pool itself runs out.
  Incast t(SharedBufferConfig{.total = Bytes(100'000), .alpha = 1e9}, false);
  EXPECT_GT(t.sw->counters().drops[DropReason::kNoBuffer], 1000u);
  expect_conservation(t);
}

}  // namespace
}  // namespace bifrost::net
