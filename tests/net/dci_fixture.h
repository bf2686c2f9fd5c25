#pragma once
// A long-haul link under test: sender U -> (100 Gb/s, 20 us by default) -> switch D port 0 -> sink
// R on port 1. The test drives D's egress towards R with a scripted gate: open means the egress is
// "ready" (it drains at its link rate), closed means zero drain. Host X on port 2 can send
// lossy traffic to U, so that D's pause frames wait behind data frames on the long link. The
// long link may have fibre jitter (both directions, from `seed`).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "bifrost/core/rng.h"
#include "bifrost/net/flowctl/dci.h"
#include "bifrost/net/flowctl/pfc.h"
#include "bifrost/net/line_rate_flows.h"
#include "net/net_fixture.h"
#include "net/scripted_drain.h"

namespace bifrost::net::testing {

struct DciBench {
  Network net;
  Host& sender = net.add_host(0);
  Host& sink = net.add_host(1);
  Host& reverse = net.add_host(2);
  Switch& sw;
  ScriptedDrain* drain = nullptr;
  LineRateFlows flows{net.kernel, 1024};
  Time one_way = Time::us(20);
  Rate long_rate = Rate::Gbps(100);
  Rate sink_rate;

  explicit DciBench(Rate drain_rate, Bytes buffer_total = Bytes::MiB(8), Time jitter = Time::zero(),
                    uint64_t seed = 0, Time long_delay = Time::us(20),
                    Rate long_link_rate = Rate::Gbps(100))
      : sw(net.add_switch([buffer_total] {
          SwitchConfig c;
          c.ports = 3;
          c.processing_latency = Time::ns(500);
          c.buffer.total = buffer_total;
          return c;
        }())),
        one_way(long_delay),
        long_rate(long_link_rate),
        sink_rate(drain_rate) {
    net.links.emplace_back(
        net.kernel,
        LinkConfig{.rate = long_rate, .propagation = one_way, .seed = seed, .jitter = jitter},
        sender.port(), sw.port(0));
    net.connect(sw.port(1), sink.port(), drain_rate, Time::us(1));
    net.connect(reverse.port(), sw.port(2), Rate::Gbps(100), Time::us(1));
    sw.routes().add_route(sender.address(), {0});
    sw.routes().add_route(sink.address(), {1});
    auto gate = std::make_unique<ScriptedDrain>();
    drain = gate.get();
    sw.egress(1).set_gate(std::move(gate));
  }

  DciLinkParams link() const {
    return DciLinkParams{.rate = long_rate,
                         .propagation = one_way,
                         .ingress_latency = Time::ns(500),
                         .max_frame_bytes = kMaxFrame,
                         .jitter = net.links[0].a_to_b().jitter()};
  }
  void backlog_sender() {
    flows.add(LineRateFlowSpec{
        .src = &sender, .dst = &sink, .bytes = uint64_t{1} << 34, .priority = kDciPrio});
  }
  // Lossy data D -> U on the long link's reverse direction: pause frames wait behind it.
  void reverse_traffic() {
    flows.add(LineRateFlowSpec{.src = &reverse, .dst = &sender, .bytes = uint64_t{1} << 34});
  }
  uint64_t drops() const { return sw.counters().drops.total_packets(); }
  Link& long_link() { return net.links[0]; }
  Link& sink_link() { return net.links[1]; }  // D -> R is its a_to_b
  uint64_t drained() { return sw.egress(1).counters().tx_bytes[kDciPrio]; }

  // Runs the random drain pattern of scripted_drain.h on the sink-facing egress.
  template <typename OnReady>
  void random_drain(RandomStream& rng, Time horizon, OnReady on_ready) {
    bifrost::net::testing::random_drain(net.kernel, *drain, rng, horizon, on_ready);
  }
};

}  // namespace bifrost::net::testing
