// PFC over a long link: 80 km (400 us one way) at 100 Gb/s, far beyond one pause time
// (0xFFFF quanta = 335.5 us). Refreshes leave one refresh period apart and cross the same link,
// so they also arrive one refresh period apart (plus at most a frame in transmission and the
// fibre's jitter): the upstream stays paused without a gap for as long as the downstream queue
// stays above xon, and the headroom of pfc_headroom_bound holds the round trip of bytes.
//
// Sender U -(80 km, 100 Gb/s, 5 ns jitter)- switch D port 0; D port 1 -(1 us)- receiver R, which
// holds D's egress paused for 3 ms; a reverse sender keeps D's egress towards U busy with lossy
// data, so D's pauses wait behind data frames.
#include <gtest/gtest.h>

#include "bifrost/core/error.h"
#include "bifrost/core/rng.h"
#include "bifrost/net/flowctl/pfc.h"
#include "bifrost/net/line_rate_flows.h"
#include "net/net_fixture.h"

namespace bifrost::net {
namespace {

constexpr int kPrio = 3;
constexpr Rate kRate = Rate::Gbps(100);
constexpr Time kOneWay = Time::us(400);
constexpr Time kJitter = Time::ns(5);
constexpr Time kHoldUntil = Time::ms(3);  // R releases D's egress here
constexpr uint32_t kMaxFrame = 1102;      // WRITE FIRST with 1024 bytes; the rest are 1086
constexpr Bytes kXoff = Bytes(200'000);
constexpr Bytes kXon = Bytes(150'000);

// 0xFFFF quanta at 100 Gb/s, and how much later one pause can arrive than its send time plus
// the fixed delays: a 1122-wire-byte frame in transmission (89,760 ps) and the jitter.
constexpr Time kPause = Time::ps(0xFFFF * 5'120);
constexpr Time kSpread = Time::ps(89'760) + kJitter;

Bytes long_link_headroom() {
  return pfc_headroom_bound({.rate = kRate,
                             .propagation = kOneWay,
                             .max_frame_bytes = kMaxFrame,
                             .max_reverse_frame_bytes = kMaxFrame,
                             .jitter = kJitter});
}

struct LongLink {
  testing::Network net;
  Host& sender = net.add_host(0);
  Host& receiver = net.add_host(1);
  Host& reverse_sender = net.add_host(2);
  Switch& sw;
  PfcPair pfc;
  LineRateFlows flows{net.kernel, 1024};
  Bytes headroom = long_link_headroom();

  explicit LongLink(Time refresh_period)
      : sw(net.add_switch([] {
          SwitchConfig c;
          c.ports = 3;
          c.buffer.total = Bytes::MiB(16);
          return c;
        }())) {
    net.links.emplace_back(
        net.kernel, LinkConfig{.rate = kRate, .propagation = kOneWay, .seed = 7, .jitter = kJitter},
        sender.port(), sw.port(0));
    net.connect(sw.port(1), receiver.port(), kRate, Time::us(1));
    net.connect(reverse_sender.port(), sw.port(2), kRate, Time::us(1));
    sw.routes().add_route(sender.address(), {0});
    sw.routes().add_route(receiver.address(), {1});
    PfcConfig c;
    c.xoff = Threshold::fixed(kXoff);
    c.xon = kXon;
    c.headroom = headroom;
    c.refresh_period = refresh_period;
    pfc = install_pfc(net.kernel, c, sw, 0, sender.nic());
    install_pfc_gate(net.kernel, sw.egress(1));
    // R keeps D's egress closed until kHoldUntil (pauses of 335.5 us every 200 us), then resumes.
    for (Time t = Time::zero(); t < kHoldUntil; t += Time::us(200)) {
      net.kernel.at(t, [this] { receiver.nic().send_control(make_pause(1u << kPrio, 0xFFFF)); });
    }
    net.kernel.at(kHoldUntil, [this] { receiver.nic().send_control(make_pause(1u << kPrio, 0)); });
    // 12.5 MB: about 10 MB go out before the first pause reaches U, the rest after the resume.
    flows.add(
        LineRateFlowSpec{.src = &sender, .dst = &receiver, .bytes = 12'500'000, .priority = kPrio});
    // 40 MB of lossy data towards U, line rate for 3.2 ms: D's pauses wait behind its frames.
    flows.add(LineRateFlowSpec{.src = &reverse_sender, .dst = &sender, .bytes = 40'000'000});
  }
};

TEST(PfcLongLink, TheOldRuleRejectedThisLink) {
  const LongLink t(Time::zero());
  EXPECT_EQ(t.pfc.ingress->refresh_period(), kPause / 2);
  EXPECT_GE(t.pfc.ingress->refresh_period() + kOneWay, kPause)
      << "refresh + propagation < pause, the former check, fails here; the link is fine";
}

// The downstream queue stays above xon from the first pause until R's release: the upstream is
// paused through all of it in one episode, sends nothing, and headroom holds what was in flight.
void expect_continuous_pause(LongLink& t) {
  // The first pause leaves D when xoff fills (about 416 us) and reaches U about 400 us later.
  t.net.kernel.run_until(Time::us(900));
  ASSERT_TRUE(t.pfc.gate->paused(kPrio));
  const uint64_t sent_when_paused = t.flows.flow(0).bytes_sent;
  const Time paused_before = t.pfc.gate->paused_time(kPrio);
  t.net.kernel.run_until(Time::us(3'500));
  EXPECT_TRUE(t.pfc.gate->paused(kPrio));
  EXPECT_EQ(t.flows.flow(0).bytes_sent, sent_when_paused) << "U sent nothing while paused";
  EXPECT_EQ(t.pfc.gate->counters().pause_episodes[kPrio], 0u) << "no pause ran out";
  EXPECT_EQ(t.pfc.gate->paused_time(kPrio) - paused_before, Time::us(2'600));
  EXPECT_GE(t.pfc.gate->counters().pause_frames_received[kPrio],
            static_cast<uint64_t>((Time::us(2'600) / t.pfc.ingress->refresh_period())))
      << "kept paused by refreshes, each arriving before the last one ran out";
  EXPECT_EQ(t.pfc.ingress->counters().pause_sent[kPrio], 1u);
  EXPECT_GT(t.sw.egress(0).counters().tx_packets[0], 10'000u) << "the reverse data ran";

  t.net.kernel.run();
  EXPECT_TRUE(t.flows.flow(0).complete);
  EXPECT_EQ(t.sw.counters().drops.total_packets(), 0u);
  EXPECT_EQ(t.pfc.gate->counters().pause_episodes[kPrio], 1u)
      << "one episode, from the first pause to the resume";
  EXPECT_EQ(t.pfc.gate->counters().resume_frames_received[kPrio], 1u);
  // Headroom: the round trip of bytes that follows xoff fills it, never more. The bound counts
  // bytes at the wire rate, 20 bytes per frame of which the switch does not store: with 1086-
  // byte frames back to back it is 1106 / 1086 of what arrives, give or take a few frames.
  const Bytes peak = t.sw.buffer().peak_headroom(0, kPrio);
  EXPECT_LE(peak, t.headroom);
  EXPECT_GE(peak, Bytes(t.headroom.count() * 1086 / 1106) - Bytes(3 * kMaxFrame))
      << "the bound is what a long link needs";
  EXPECT_GT(t.headroom, Bytes(10'000'000)) << "2 x 400 us at 100 Gb/s";
}

TEST(PfcLongLink, DefaultRefreshKeepsTheUpstreamPausedWithoutAGap) {
  LongLink t(Time::zero());
  expect_continuous_pause(t);
}

TEST(PfcLongLink, RefreshAtTheLimitStillLeavesNoGap) {
  LongLink t(kPause - kSpread - Time::ps(1));
  expect_continuous_pause(t);
}

TEST(PfcLongLink, RefreshWithoutRoomForTheSpreadIsRejected) {
  EXPECT_THROW(LongLink(kPause - kSpread), Error)
      << "a pause waiting behind a frame, or a jittered one, could arrive after its "
         "predecessor ran out";
  EXPECT_NO_THROW(LongLink(kPause - kSpread - Time::ps(1)));
}

}  // namespace
}  // namespace bifrost::net
