// 802.1Qbb semantics at the upstream end (PfcGate): a pause stops the port within one frame,
// a zero-time pause or the timer's expiry resumes it, and a refresh keeps it paused. The
// downstream half (PfcIngress) pauses at xoff, refreshes while above xon and resumes at xon.
#include "bifrost/net/flowctl/pfc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/net/line_rate_flows.h"
#include "net/net_fixture.h"

namespace bifrost::net {
namespace {

constexpr int kPrio = 3;

// Keeps host A's NIC fed with 1024-byte priority-3 packets and records when each starts.
struct Feeder final : NicTransmitListener {
  Host* host = nullptr;
  sim::EventKernel* kernel = nullptr;
  std::vector<Time> starts;
  void push() {
    host->send_tagged(testing::data_packet(host->address(), testing::host_ip(1), 1024, kPrio), 1);
  }
  void on_nic_transmit(uint32_t) override {
    starts.push_back(kernel->now());
    if (kernel->now() < Time::us(80)) push();
  }
  // Starts in the open interval (from, to).
  long starts_between(Time from, Time to) const {
    return std::count_if(starts.begin(), starts.end(), [&](Time t) { return t > from && t < to; });
  }
  bool started_at(Time t) const {
    return std::find(starts.begin(), starts.end(), t) != starts.end();
  }
  Time last_start_at_or_before(Time t) const {
    Time last = Time::zero();
    for (Time s : starts) {
      if (s <= t) last = s;
    }
    return last;
  }
};

// Host A -> host B, 100 Gb/s, 1 us. B's NIC sends pause frames by hand at set times.
struct PausedPair {
  testing::Network net;
  Host& a = net.add_host(0);
  Host& b = net.add_host(1);
  Link& link = net.connect(a.port(), b.port(), Rate::Gbps(100), Time::us(1));
  PfcGate* gate = install_pfc_gate(net.kernel, a.nic());
  Feeder feeder;
  PausedPair() {
    feeder.host = &a;
    feeder.kernel = &net.kernel;
    a.set_transmit_listener(&feeder);
    feeder.push();
  }
  void pause_from_b_at(Time when, uint16_t quanta) {
    net.kernel.at(when, [this, quanta] { b.nic().send_control(make_pause(1u << kPrio, quanta)); });
  }
};

// A pause sent by an idle NIC at time t arrives at t + 6,720 (84 wire bytes) + 1,000,000 ps.
// A's frames are 1106 wire bytes = 88,480 ps, back to back from time 0.
// 1000 quanta at 100 Gb/s = 1000 x 5,120 ps = 5,120,000 ps.
constexpr int64_t kPauseDelay = 1'006'720;

TEST(PfcGate, PauseStopsWithinOneFrameAndTimerExpiryResumes) {
  PausedPair t;
  t.pause_from_b_at(Time::us(10), 1000);
  t.net.kernel.run_until(Time::us(30));
  const Time arrival = Time::ps(10'000'000 + kPauseDelay);  // 11,006,720
  const Time expiry = arrival + Time::ps(5'120'000);        // 16,126,720
  // The frame on the wire at 11,006,720 started at 124 x 88,480 = 10,971,520 and finishes.
  EXPECT_EQ(t.feeder.last_start_at_or_before(arrival), Time::ps(10'971'520));
  EXPECT_EQ(t.feeder.starts_between(arrival, expiry), 0);
  EXPECT_TRUE(t.feeder.started_at(expiry)) << "resumes the moment the pause ends";
  EXPECT_EQ(t.gate->counters().pause_frames_received[kPrio], 1u);
  EXPECT_EQ(t.gate->counters().pause_episodes[kPrio], 1u);
  EXPECT_EQ(t.gate->counters().paused_time[kPrio], Time::ps(5'120'000));
  EXPECT_FALSE(t.gate->paused(kPrio));
}

TEST(PfcGate, ZeroTimePauseResumesAtOnce) {
  PausedPair t;
  t.pause_from_b_at(Time::us(30), 0xFFFF);
  t.pause_from_b_at(Time::us(35), 0);
  t.net.kernel.run_until(Time::us(40));
  const Time paused = Time::ps(30'000'000 + kPauseDelay);
  const Time resumed = Time::ps(35'000'000 + kPauseDelay);
  EXPECT_EQ(t.feeder.starts_between(paused, resumed), 0);
  EXPECT_TRUE(t.feeder.started_at(resumed));
  EXPECT_EQ(t.gate->counters().resume_frames_received[kPrio], 1u);
  EXPECT_EQ(t.gate->counters().paused_time[kPrio], Time::ps(5'000'000));
}

TEST(PfcGate, RefreshBeforeExpiryKeepsThePortPaused) {
  PausedPair t;
  t.pause_from_b_at(Time::us(50), 1000);
  t.pause_from_b_at(Time::us(54), 1000);
  t.pause_from_b_at(Time::us(58), 1000);
  t.net.kernel.run_until(Time::us(40));
  t.net.kernel.run_until(Time::us(60));
  EXPECT_TRUE(t.gate->paused(kPrio));
  EXPECT_EQ(t.gate->paused_until(kPrio), Time::ps(58'000'000 + kPauseDelay + 5'120'000));
  t.net.kernel.run_until(Time::us(70));
  const Time first = Time::ps(50'000'000 + kPauseDelay);
  const Time expiry = Time::ps(58'000'000 + kPauseDelay + 5'120'000);  // 64,126,720
  EXPECT_EQ(t.feeder.starts_between(first, expiry), 0);
  EXPECT_TRUE(t.feeder.started_at(expiry));
  EXPECT_EQ(t.gate->counters().pause_frames_received[kPrio], 3u);
  EXPECT_EQ(t.gate->counters().pause_episodes[kPrio], 1u) << "one episode, refreshed twice";
  EXPECT_EQ(t.gate->counters().paused_time[kPrio], expiry - first);
}

TEST(PfcGate, PauseForAnotherPriorityDoesNotStopThisOne) {
  PausedPair t;
  t.net.kernel.at(Time::us(10), [&] { t.b.nic().send_control(make_pause(1u << 5, 0xFFFF)); });
  t.net.kernel.run_until(Time::us(20));
  EXPECT_GT(t.feeder.starts_between(Time::us(11), Time::us(20)), 90);
  EXPECT_TRUE(t.gate->paused(5));
  EXPECT_FALSE(t.gate->paused(kPrio));
}

// Sender -> switch -> receiver. The receiver holds the switch's egress paused, so the
// switch's buffer only fills; the switch's PFC must then pause the sender and keep it paused.
struct Blocked {
  testing::Network net;
  Host& sender = net.add_host(0);
  Host& receiver = net.add_host(1);
  Switch& sw;
  PfcPair pfc;
  LineRateFlows flows{net.kernel, 1024};
  static SwitchConfig config() {
    SwitchConfig c;
    c.ports = 2;
    c.buffer.total = Bytes::MiB(1);
    return c;
  }
  explicit Blocked(const PfcConfig& pfc_config) : sw(net.add_switch(config())) {
    net.connect(sender.port(), sw.port(0), Rate::Gbps(100), Time::us(1));
    net.connect(sw.port(1), receiver.port(), Rate::Gbps(100), Time::us(1));
    sw.routes().add_route(receiver.address(), {1});
    pfc = install_pfc(net.kernel, pfc_config, sw, 0, sender.nic());
    install_pfc_gate(net.kernel, sw.egress(1));
    receiver.nic().send_control(make_pause(1u << kPrio, 0xFFFF));  // 335 us, longer than the test
    flows.add(LineRateFlowSpec{
        .src = &sender, .dst = &receiver, .bytes = 10'000 * 1024, .priority = kPrio});
  }
};

TEST(PfcIngress, PausesAtXoffAndRefreshesWhileAboveXon) {
  PfcConfig c;
  c.xoff = Threshold::fixed(Bytes(20'000));
  c.headroom = Bytes(60'000);
  c.pause_quanta = 1000;  // 5.12 us at 100 Gb/s; refreshed every 2.56 us
  Blocked t(c);
  EXPECT_EQ(t.pfc.ingress->refresh_period(), Time::ps(2'560'000));
  t.net.kernel.run_until(Time::us(10));
  const uint64_t sent_at_10us = t.flows.flow(0).bytes_sent;
  t.net.kernel.run_until(Time::us(100));
  EXPECT_EQ(t.flows.flow(0).bytes_sent, sent_at_10us) << "no byte left the sender after 10 us";
  EXPECT_TRUE(t.pfc.gate->paused(kPrio));
  EXPECT_EQ(t.pfc.ingress->counters().pause_sent[kPrio], 1u);
  // Frames are 1102 bytes (FIRST) then 1086: after 18 frames 19,564 bytes are buffered, the
  // 19th crosses xoff. It left the sender at 89,760 + 18 x 88,480 = 1,682,400 ps and arrives
  // 1 us later: the pause goes out at 2,682,400 ps. Refreshes follow every 2,560,000 ps while
  // the buffer stays above xon: 2,682,400 + 38 x 2,560,000 = 99,962,400 is the last before
  // 100 us.
  EXPECT_EQ(t.pfc.ingress->counters().refresh_sent[kPrio], 38u);
  EXPECT_EQ(t.pfc.gate->counters().pause_episodes[kPrio], 0u) << "never expired";
  EXPECT_EQ(t.sw.counters().drops.total_packets(), 0u);
  EXPECT_GT(t.sw.buffer().ingress_usage(0, kPrio).total(), Bytes(20'000));
}

TEST(PfcIngress, ResumesWhenTheBufferDrainsToXon) {
  PfcConfig c;
  c.xoff = Threshold::fixed(Bytes(20'000));
  c.xon_offset = Bytes(5'000);
  c.headroom = Bytes(60'000);
  Blocked t(c);
  t.net.kernel.run_until(Time::us(20));
  EXPECT_TRUE(t.pfc.gate->paused(kPrio));
  // Release the switch's egress: the buffer drains to 15,000 bytes, the switch sends a resume.
  t.receiver.nic().send_control(make_pause(1u << kPrio, 0));
  t.net.kernel.run_until(Time::us(25));
  EXPECT_EQ(t.pfc.ingress->counters().resume_sent[kPrio], 1u);
  EXPECT_GE(t.pfc.gate->counters().resume_frames_received[kPrio], 1u);
  t.net.kernel.run();
  EXPECT_TRUE(t.flows.flow(0).complete);
  EXPECT_EQ(t.sw.counters().drops.total_packets(), 0u);
  // After the resume the sender and the switch's egress both run at 100 Gb/s, so the queue
  // stays near xon and never reaches xoff again.
  EXPECT_EQ(t.pfc.ingress->counters().pause_sent[kPrio], 1u);
  EXPECT_EQ(t.pfc.ingress->counters().resume_sent[kPrio], 1u);
}

// The thresholds alone, fed synthetic buffer usage; pauses and resumes are counted where they
// leave, on the switch's egress port.
struct ThresholdBench {
  testing::Network net;
  Host& h = net.add_host(0);
  Switch& sw = net.add_switch([] {
    SwitchConfig c;
    c.ports = 1;
    return c;
  }());
  Link& link = net.connect(sw.port(0), h.port(), Rate::Gbps(100), Time::zero());
  uint64_t frames() const { return sw.egress(0).counters().control_frames_sent; }
};

IngressUsage usage(uint64_t buffered, uint64_t headroom, uint64_t xoff) {
  return IngressUsage{
      .buffered = Bytes(buffered), .headroom = Bytes(headroom), .xoff = Bytes(xoff)};
}

TEST(PfcIngress, PausesAtXoffCountingHeadroomAndResumesAtXonOffset) {
  ThresholdBench t;
  PfcConfig c;
  c.xon_offset = Bytes(4'000);
  PfcIngress pfc(t.net.kernel, c, t.sw.egress(0));
  pfc.on_admitted(kPrio, usage(19'999, 0, 20'000));
  EXPECT_FALSE(pfc.pausing(kPrio));
  pfc.on_admitted(kPrio, usage(19'000, 1'000, 20'000));
  EXPECT_TRUE(pfc.pausing(kPrio)) << "headroom bytes count towards xoff";
  pfc.on_admitted(kPrio, usage(21'000, 0, 20'000));
  EXPECT_EQ(pfc.counters().pause_sent[kPrio], 1u) << "one pause per episode";
  pfc.on_released(kPrio, usage(16'001, 0, 20'000));
  EXPECT_TRUE(pfc.pausing(kPrio));
  pfc.on_released(kPrio, usage(10'000, 1'000, 20'000));
  EXPECT_TRUE(pfc.pausing(kPrio)) << "below xon, but headroom is not empty yet";
  pfc.on_released(kPrio, usage(16'000, 0, 20'000));  // 16,000 = xoff - offset
  EXPECT_FALSE(pfc.pausing(kPrio));
  EXPECT_EQ(pfc.counters().resume_sent[kPrio], 1u);
  pfc.on_admitted(1, usage(1'000'000, 0, 20'000));
  EXPECT_FALSE(pfc.pausing(1)) << "priority 1 is lossy";
  t.net.kernel.run_until(Time::us(1));  // the resume waited behind the pause on the wire
  EXPECT_EQ(t.frames(), 2u);
  EXPECT_EQ(pfc.watched_priorities(), 1u << kPrio);
  EXPECT_TRUE(pfc.limits(kPrio).lossless);
  EXPECT_FALSE(pfc.limits(1).lossless);
}

TEST(PfcIngress, FixedXonOverridesTheOffset) {
  ThresholdBench t;
  PfcConfig c;
  c.xon = Bytes(5'000);
  PfcIngress pfc(t.net.kernel, c, t.sw.egress(0));
  pfc.on_admitted(kPrio, usage(20'000, 0, 20'000));
  pfc.on_released(kPrio, usage(5'001, 0, 20'000));
  EXPECT_TRUE(pfc.pausing(kPrio));
  pfc.on_released(kPrio, usage(5'000, 0, 20'000));
  EXPECT_FALSE(pfc.pausing(kPrio));
}

TEST(PfcIngress, ConfigurationErrors) {
  testing::Network net;
  Host& h = net.add_host(0);
  SwitchConfig sc;
  sc.ports = 2;
  sc.buffer.total = Bytes(100'000);
  Switch& sw = net.add_switch(sc);
  PfcConfig c;
  EXPECT_THROW(install_pfc(net.kernel, c, sw, 0, h.nic()), Error) << "no link yet";
  net.connect(h.port(), sw.port(0), Rate::Gbps(100), Time::zero());
  c.pause_quanta = 0;
  EXPECT_THROW(install_pfc(net.kernel, c, sw, 0, h.nic()), Error);
  c = PfcConfig{};
  c.refresh_period = Time::ms(1);  // longer than 335 us
  EXPECT_THROW(install_pfc(net.kernel, c, sw, 0, h.nic()), Error);
  c = PfcConfig{};
  c.pause_quanta = 200;  // 1.024 us at 100 Gb/s
  c.refresh_period = Time::ns(600);
  EXPECT_NO_THROW(PfcIngress(net.kernel, c, sw.egress(0)));
  // The propagation does not count (refreshes arrive as far apart as they leave), the wait
  // behind a 1102-byte frame (1122 wire bytes, 89,760 ps) does.
  testing::Network far;
  Host& h2 = far.add_host(0);
  Switch& sw2 = far.add_switch(sc);
  far.connect(h2.port(), sw2.port(0), Rate::Gbps(100), Time::ms(1));
  EXPECT_NO_THROW(PfcIngress(far.kernel, c, sw2.egress(0))) << "200 km of fibre is fine";
  c.refresh_period = Time::ps(1'024'000 - 89'760);
  EXPECT_THROW(PfcIngress(far.kernel, c, sw2.egress(0)), Error)
      << "a refresh that waited behind a frame would arrive as the pause runs out";
  c.refresh_period = Time::ps(1'024'000 - 89'760 - 1);
  EXPECT_NO_THROW(PfcIngress(far.kernel, c, sw2.egress(0)));
  c = PfcConfig{};
  c.headroom = Bytes(200'000);  // more than the whole buffer
  EXPECT_THROW(install_pfc(net.kernel, c, sw, 0, h.nic()), Error);
  EXPECT_EQ(sw.ingress_flow_control(0), nullptr) << "a failed install leaves nothing behind";
  EXPECT_EQ(h.nic().gate(), nullptr);
  EXPECT_THROW(install_pfc(net.kernel, PfcConfig{}, sw, 1, h.nic()), Error) << "wrong port";
}

}  // namespace
}  // namespace bifrost::net
