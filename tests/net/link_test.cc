// Links: failure loses the frames on the wire and drops what is sent while down, recovery
// resumes; random and scripted losses; configuration errors.
#include "bifrost/net/link.h"

#include <gtest/gtest.h>

#include "bifrost/core/error.h"
#include "bifrost/net/line_rate_flows.h"
#include "net/net_fixture.h"

namespace bifrost::net {
namespace {

// Host A -> host B over 100 Gb/s with 1 us of propagation.
struct TwoHosts {
  testing::Network net;
  Host& a = net.add_host(0);
  Host& b = net.add_host(1);
  Link& link = net.connect(a.port(), b.port(), Rate::Gbps(100), Time::us(1), /*seed=*/7);
  LineRateFlows flows{net.kernel, 1024};
  uint32_t flow(uint64_t bytes) {
    return flows.add(LineRateFlowSpec{.src = &a, .dst = &b, .bytes = bytes});
  }
};

TEST(Link, FailureLosesFramesOnTheWireAndDropsFramesSentWhileDown) {
  TwoHosts t;
  // 400 packets of 1024 B. Wire times: FIRST 1122 B = 89,760 ps, the rest 1106 B = 88,480 ps.
  // Packet k >= 1 starts at 89,760 + (k - 1) x 88,480 and arrives 88,480 + 1,000,000 later.
  const uint32_t id = t.flow(400 * 1024);
  t.link.fail_at(Time::us(5));
  t.link.recover_at(Time::us(20));
  t.net.kernel.run();
  const ChannelCounters& c = t.link.a_to_b().counters();
  // Delivered before the failure: arrival 89,760 + k x 88,480 + 1,000,000 < 5,000,000, so
  // k <= 44: 45 packets. (At an equal time the failure, scheduled first, would win.)
  // On the wire at the failure: started before 5 us (k <= 56: 89,760 + 55 x 88,480 =
  // 4,956,160) and not yet arrived: k = 45..56, 12 packets.
  EXPECT_EQ(c.drops[DropReason::kLostInFlight], 12u);
  // Sent while down: starts in [5 us, 20 us): k = 57 (5,044,640) .. 226 (19,997,760): 170.
  EXPECT_EQ(c.drops[DropReason::kLinkDown], 170u);
  // After recovery: k = 227..399, 173 packets; 45 + 173 = 218 delivered.
  EXPECT_EQ(c.data_frames_sent, 400u);
  EXPECT_EQ(c.data_frames_delivered, 218u);
  EXPECT_EQ(c.drops.total_packets() + c.data_frames_delivered, c.data_frames_sent);
  const LineRateFlowRecord& f = t.flows.flow(id);
  EXPECT_EQ(f.bytes_received, 218u * 1024);
  EXPECT_FALSE(f.complete) << "nothing resends lost bytes";
  EXPECT_EQ(f.out_of_order, 1u) << "one gap, where the outage was";
  EXPECT_TRUE(t.link.up());
}

TEST(Link, ControlFramesOnTheWireAreLostToo) {
  TwoHosts t;
  t.b.nic().send_control(make_pause(1, 100));  // arrives at 6,720 + 1,000,000 ps
  t.link.fail_at(Time::ns(500));
  t.net.kernel.run();
  EXPECT_EQ(t.link.b_to_a().counters().control_frames_lost, 1u);
  EXPECT_EQ(t.a.nic().counters().control_frames_received, 0u);
}

TEST(Link, RandomLossDropsTheConfiguredFraction) {
  TwoHosts t;
  t.link.a_to_b().set_loss_rate(0.1);
  const uint32_t id = t.flow(20'000 * 1024);
  t.net.kernel.run();
  const ChannelCounters& c = t.link.a_to_b().counters();
  const double lost = static_cast<double>(c.drops[DropReason::kRandomLoss]) / 20'000.0;
  // Binomial(20,000, 0.1) has a standard deviation of 0.0021; allow 5 of them.
  EXPECT_NEAR(lost, 0.1, 0.0106);
  EXPECT_EQ(t.flows.flow(id).packets_received + c.drops[DropReason::kRandomLoss], 20'000u);
  EXPECT_EQ(t.link.b_to_a().counters().drops.total_packets(), 0u) << "the other direction";
}

TEST(Link, ScriptedDropsByPositionAndByPsn) {
  TwoHosts t;
  const uint32_t first = t.flow(10 * 1024);
  const uint32_t second = t.flow(10 * 1024);
  Channel& ch = t.link.a_to_b();
  // The first flow's PSN 0 goes on the wire at once and its PSN 1 is queued before the second
  // flow starts, so the NIC sends: first 0, first 1, second 0, first 2, second 1, ...
  ch.drop_nth_data_frame(3);                  // second flow, PSN 0
  ch.drop_psn(4, second);                     // second flow, PSN 4 only
  ch.drop_psn(7, std::nullopt, /*times=*/2);  // PSN 7 of both flows
  t.net.kernel.run();
  EXPECT_EQ(ch.counters().drops[DropReason::kScripted], 4u);
  EXPECT_EQ(t.flows.flow(first).packets_received, 9u);   // lost PSN 7
  EXPECT_EQ(t.flows.flow(second).packets_received, 7u);  // lost PSN 0, 4 and 7
  EXPECT_EQ(t.flows.flow(first).out_of_order, 1u);
  EXPECT_EQ(t.flows.flow(second).out_of_order, 3u);
}

TEST(Link, FiberDelayIsFiveMicrosecondsPerKilometre) {
  EXPECT_EQ(fiber_delay(1.0), Time::us(5));
  EXPECT_EQ(fiber_delay(0.2), Time::ns(1000));
  EXPECT_EQ(fiber_delay(100.0), Time::us(500));
  EXPECT_THROW(fiber_delay(-1.0), Error);
}

TEST(Link, ConfigurationErrors) {
  testing::Network net;
  Host& a = net.add_host(0);
  Host& b = net.add_host(1);
  LinkConfig c;
  c.rate = Rate::bps(0);
  EXPECT_THROW(Link(net.kernel, c, a.port(), b.port()), Error);
  c = LinkConfig{};
  c.propagation = Time::ps(-1);
  EXPECT_THROW(Link(net.kernel, c, a.port(), b.port()), Error);
  c = LinkConfig{};
  c.loss_rate = 1.5;
  EXPECT_THROW(Link(net.kernel, c, a.port(), b.port()), Error);
  EXPECT_THROW(Link(net.kernel, LinkConfig{}, a.port(), a.port()), Error);
  Link& ok = net.connect(a.port(), b.port(), Rate::Gbps(25), Time::zero());
  EXPECT_THROW(ok.a_to_b().drop_nth_data_frame(0), Error);
  EXPECT_THROW(ok.a_to_b().drop_psn(1, std::nullopt, 0), Error);
}

}  // namespace
}  // namespace bifrost::net
