#pragma once
// A long link with a SWING relay at each end:
//   sender U -(1 us)- relay A =(100 Gb/s, 20 us by default)= relay B -(1 us)- switch D -> sink R
// D is the DCI switch behind relay B: ordinary PFC towards B (SWING's thresholds, headroom from
// the short link), and the test drives D's egress towards R with a scripted gate (ready: drains
// at its link rate; closed: zero drain). Host X on D's port 2 can send lossy traffic to U, so
// that the pauses B relays wait behind data frames on the long link. The long link may have
// fibre jitter (both directions, from `seed`).
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>

#include "bifrost/net/flowctl/pfc.h"
#include "bifrost/net/flowctl/swing.h"
#include "bifrost/net/line_rate_flows.h"
#include "bifrost/net/swing_relay.h"
#include "net/net_fixture.h"
#include "net/scripted_drain.h"

namespace bifrost::net::testing {

inline SwingRelayConfig relay_config(const char* name) {
  SwingRelayConfig c;
  c.name = name;
  c.processing_latency = Time::ns(500);
  c.buffer.total = Bytes::MiB(8);
  return c;
}

struct SwingBench {
  Network net;
  Host& sender = net.add_host(0);
  Host& sink = net.add_host(1);
  Host& reverse = net.add_host(2);
  std::deque<SwingRelay> relays;
  SwingRelay& a = relays.emplace_back(net.kernel, relay_config("A"));
  SwingRelay& b = relays.emplace_back(net.kernel, relay_config("B"));
  Switch& sw;
  ScriptedDrain* drain = nullptr;
  LineRateFlows flows{net.kernel, 1024};
  Time one_way;
  SwingConfig config;

  explicit SwingBench(Rate drain_rate, Time jitter = Time::zero(), uint64_t seed = 0,
                      Time long_delay = Time::us(20))
      : sw(net.add_switch([] {
          SwitchConfig c;
          c.ports = 3;
          c.processing_latency = Time::ns(500);
          c.buffer.total = Bytes::MiB(4);
          return c;
        }())),
        one_way(long_delay) {
    config.priorities = 1u << kDciPrio;
    config.max_frame_bytes = kMaxFrame;
    net.connect(sender.port(), a.port(SwingRelay::kLocalPort), Rate::Gbps(100), Time::us(1));
    net.links.emplace_back(
        net.kernel,
        LinkConfig{.rate = Rate::Gbps(100), .propagation = one_way, .seed = seed, .jitter = jitter},
        a.port(SwingRelay::kRemotePort), b.port(SwingRelay::kRemotePort));
    net.connect(b.port(SwingRelay::kLocalPort), sw.port(0), Rate::Gbps(100), Time::us(1));
    net.connect(sw.port(1), sink.port(), drain_rate, Time::us(1));
    net.connect(reverse.port(), sw.port(2), Rate::Gbps(100), Time::us(1));
    sw.routes().add_route(sender.address(), {0});
    sw.routes().add_route(sink.address(), {1});
    auto gate = std::make_unique<ScriptedDrain>();
    drain = gate.get();
    sw.egress(1).set_gate(std::move(gate));
  }

  // The long link as relay B sees it.
  SwingLinkParams link() {
    return swing_link_params(b, a.egress(SwingRelay::kRemotePort), kMaxFrame);
  }
  // D's port towards B: ordinary PFC with SWING's thresholds and the short link's headroom.
  PfcPair install_switch_pfc() {
    PfcConfig pfc;
    pfc.lossless_priorities = config.priorities;
    pfc.xoff = Threshold::fixed(config.xoff);
    pfc.xon = config.xon;
    pfc.headroom = pfc_headroom_bound(
        {Rate::Gbps(100), Time::us(1), sw.processing_latency(), kMaxFrame, kMaxFrame});
    return install_pfc(net.kernel, pfc, sw, 0, b.egress(SwingRelay::kLocalPort));
  }
  // SWING as designed: both relays and D's PFC.
  SwingPoints install_swing() {
    install_swing_relay(net.kernel, config, a, sender.nic(), b.egress(SwingRelay::kRemotePort));
    const SwingPoints points =
        install_swing_relay(net.kernel, config, b, sw.egress(0), a.egress(SwingRelay::kRemotePort));
    install_switch_pfc();
    return points;
  }

  void backlog_sender() {
    flows.add(LineRateFlowSpec{
        .src = &sender, .dst = &sink, .bytes = uint64_t{1} << 34, .priority = kDciPrio});
  }
  // Lossy data D -> U on the long link's reverse direction: relayed pauses wait behind it.
  void reverse_traffic() {
    flows.add(LineRateFlowSpec{.src = &reverse, .dst = &sender, .bytes = uint64_t{1} << 34});
  }
  uint64_t drops() const {
    return sw.counters().drops.total_packets() + a.counters().drops.total_packets() +
           b.counters().drops.total_packets();
  }
  // The most relay B has held from the long link.
  Bytes relay_peak() const { return b.buffer().peak_headroom(SwingRelay::kRemotePort, kDciPrio); }
  uint64_t drained() { return sw.egress(1).counters().tx_bytes[kDciPrio]; }
};

}  // namespace bifrost::net::testing
