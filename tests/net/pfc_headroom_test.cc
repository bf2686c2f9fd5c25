// PFC headroom: the bytes that arrive between a lossless ingress crossing xoff and the upstream
// stopping. docs/net.md derives the bound; here it is checked on both sides, exactly.
//
// Sender U -> switch D (port 0, 100 Gb/s, 1 us, D's processing latency 500 ns) -> receiver R.
// R keeps D's egress paused, so nothing drains and every byte after xoff lands in headroom.
// U sends 1024-byte RC WRITE packets back to back: FIRST is 1102 frame bytes, the rest 1086
// (1106 on the wire, 88,480 ps).
//
// xoff = 20,000: after 18 frames 1102 + 17 x 1086 = 19,564 bytes are buffered; frame 19 (f0)
// does not fit under xoff, goes to headroom and triggers the pause. f0 left U at
// e0 = 89,760 + 18 x 88,480 = 1,682,400 ps and is admitted at e0 + 1 us + 500 ns = 3,182,400.
// With D's egress towards U idle, the pause (84 wire bytes, 6,720 ps) reaches U at
// t1 = 3,182,400 + 6,720 + 1,000,000 = 4,189,120. U finishes the frame on the wire; the frames
// that start at or before t1 are those at e0 + (k - 1) x 88,480 <= t1, k <= 1 + 28.33: 29.
// Headroom needed: f0 + 29 frames = 30 x 1086 = 32,580 bytes.
#include "bifrost/net/flowctl/pfc.h"

#include <gtest/gtest.h>

#include "bifrost/net/line_rate_flows.h"
#include "net/net_fixture.h"

namespace bifrost::net {
namespace {

constexpr int kPrio = 3;

struct Scenario {
  testing::Network net;
  Host& sender = net.add_host(0);
  Host& receiver = net.add_host(1);
  Host& reverse_sender = net.add_host(2);
  Switch& sw;
  PfcPair pfc;
  LineRateFlows flows{net.kernel, 1024};

  Scenario(Bytes headroom, Threshold xoff, bool reverse_traffic)
      : sw(net.add_switch([] {
          SwitchConfig c;
          c.ports = 3;
          c.processing_latency = Time::ns(500);
          c.buffer.total = Bytes::MiB(1);
          return c;
        }())) {
    net.connect(sender.port(), sw.port(0), Rate::Gbps(100), Time::us(1));
    net.connect(sw.port(1), receiver.port(), Rate::Gbps(100), Time::us(1));
    net.connect(reverse_sender.port(), sw.port(2), Rate::Gbps(100), Time::us(1));
    sw.routes().add_route(sender.address(), {0});
    sw.routes().add_route(receiver.address(), {1});
    PfcConfig c;
    c.xoff = xoff;
    c.headroom = headroom;
    pfc = install_pfc(net.kernel, c, sw, 0, sender.nic());
    install_pfc_gate(net.kernel, sw.egress(1));
    receiver.nic().send_control(make_pause(1u << kPrio, 0xFFFF));  // holds for 335 us
    flows.add(LineRateFlowSpec{
        .src = &sender, .dst = &receiver, .bytes = 1000 * 1024, .priority = kPrio});
    if (reverse_traffic) {
      // Keeps D's egress towards U busy with data, so the pause waits behind a frame.
      flows.add(LineRateFlowSpec{.src = &reverse_sender, .dst = &sender, .bytes = 1000 * 1024});
    }
    net.kernel.run_until(Time::us(60));
  }
  uint64_t headroom_drops() const { return sw.counters().drops[DropReason::kHeadroomExceeded]; }
  Bytes peak() const { return sw.buffer().peak_headroom(0, kPrio); }
};

TEST(PfcHeadroom, ExactNeedWithAnIdleReverseDirectionIsNotDropped) {
  Scenario s(Bytes(32'580), Threshold::fixed(Bytes(20'000)), false);
  EXPECT_EQ(s.headroom_drops(), 0u);
  EXPECT_EQ(s.peak(), Bytes(32'580)) << "the worst case happens: the bound is tight";
  EXPECT_EQ(s.pfc.ingress->counters().pause_sent[kPrio], 1u);
  EXPECT_EQ(s.flows.flow(0).bytes_sent, 48u * 1024) << "18 + f0 + 29 frames, then stopped";
}

TEST(PfcHeadroom, OneByteLessDropsTheLastFrameInFlight) {
  Scenario s(Bytes(32'579), Threshold::fixed(Bytes(20'000)), false);
  EXPECT_EQ(s.headroom_drops(), 1u);
  EXPECT_EQ(s.peak(), Bytes(29 * 1086));
  EXPECT_EQ(s.sw.counters().drops.total_packets(), 1u) << "nothing else is dropped";
}

TEST(PfcHeadroom, BoundFormulaWithLiteralNumbers) {
  // window = 2 x 1 us + 500 ns + T(reverse frame 1102 + 20 = 1122 B: 89,760 ps)
  //          + T(pause 64 + 20 = 84 B: 6,720 ps) = 2,596,480 ps, which carries 32,456 bytes
  //          at 100 Gb/s (80 ps per byte); bound = 2 x 1102 + 32,456 = 34,660.
  const Bytes bound = pfc_headroom_bound(PfcHeadroomInputs{.rate = Rate::Gbps(100),
                                                           .propagation = Time::us(1),
                                                           .ingress_latency = Time::ns(500),
                                                           .max_frame_bytes = 1102,
                                                           .max_reverse_frame_bytes = 1102});
  EXPECT_EQ(bound, Bytes(34'660));
  // A 10 km link at 100 Gb/s: 2 x 50 us = 100 us = 1,250,000 bytes in flight, plus the rest.
  const Bytes long_haul = pfc_headroom_bound(PfcHeadroomInputs{.rate = Rate::Gbps(100),
                                                               .propagation = Time::us(50),
                                                               .ingress_latency = Time::zero(),
                                                               .max_frame_bytes = 1102,
                                                               .max_reverse_frame_bytes = 1102});
  EXPECT_EQ(long_haul, Bytes(2 * 1102 + 1'250'000 + 1122 + 84));
}

TEST(PfcHeadroom, BoundHoldsWhenThePauseWaitsBehindAReverseFrame) {
  Scenario s(Bytes(34'660), Threshold::fixed(Bytes(20'000)), true);
  EXPECT_EQ(s.headroom_drops(), 0u);
  EXPECT_LE(s.peak(), Bytes(34'660));
  EXPECT_GE(s.peak(), Bytes(32'580)) << "waiting behind a frame can only add";
  EXPECT_GT(s.flows.flow(1).bytes_received, 0u) << "the reverse direction carried data";
}

TEST(PfcHeadroom, DynamicXoffPausesAtAlphaTimesFreeSharedBytes) {
  Scenario s(Bytes(34'660), Threshold::dynamic(1.0 / 16), false);
  EXPECT_EQ(s.headroom_drops(), 0u);
  const IngressUsage u = s.sw.buffer().ingress_usage(0, kPrio);
  // Shared pool: 1 MiB - 34,660 headroom = 1,013,916 bytes. The buffered bytes stop growing at
  // the first frame that would pass alpha x free; after that, frames go to headroom only.
  EXPECT_EQ(s.sw.buffer().shared_size(), Bytes(1'048'576 - 34'660));
  EXPECT_LE(u.buffered, u.xoff);
  EXPECT_GT(u.buffered + Bytes(1086), u.xoff);
  EXPECT_GT(u.headroom, Bytes(0));
  EXPECT_EQ(s.pfc.ingress->counters().pause_sent[kPrio], 1u);
}

}  // namespace
}  // namespace bifrost::net
