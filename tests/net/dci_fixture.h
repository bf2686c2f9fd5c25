#pragma once
// A long-haul link under test: sender U -> (100 Gb/s, 20 us) -> switch D port 0 -> sink R on
// port 1. The test drives D's egress towards R with a scripted gate: open means the egress is
// "ready" (it drains at its link rate), closed means zero drain. Host X on port 2 can send
// lossy traffic to U, so that D's pause frames wait behind data frames on the long link.
#include <cstdint>
#include <memory>
#include <vector>

#include "bifrost/net/flowctl/dci.h"
#include "bifrost/net/flowctl/pfc.h"
#include "bifrost/net/line_rate_flows.h"
#include "net/net_fixture.h"

namespace bifrost::net::testing {

inline constexpr int kDciPrio = 3;
inline constexpr uint32_t kMaxFrame = 1102;  // LineRateFlows at MTU 1024: FIRST frame

// Opens and closes the sink-facing egress on the test's script.
class ScriptedDrain final : public EgressGate {
 public:
  void on_control(const ControlFrame& /*frame*/) override {}
  void set_ready(bool ready) {
    if (ready) {
      open(kDciPrio);
    } else {
      close(kDciPrio);
    }
  }
  bool ready() const { return (closed_mask() >> kDciPrio & 1) == 0; }
};

struct DciBench {
  Network net;
  Host& sender = net.add_host(0);
  Host& sink = net.add_host(1);
  Host& reverse = net.add_host(2);
  Switch& sw;
  ScriptedDrain* drain = nullptr;
  LineRateFlows flows{net.kernel, 1024};
  Time one_way = Time::us(20);

  explicit DciBench(Rate drain_rate, Bytes buffer_total = Bytes::MiB(8))
      : sw(net.add_switch([buffer_total] {
          SwitchConfig c;
          c.ports = 3;
          c.processing_latency = Time::ns(500);
          c.buffer.total = buffer_total;
          return c;
        }())) {
    net.connect(sender.port(), sw.port(0), Rate::Gbps(100), one_way);
    net.connect(sw.port(1), sink.port(), drain_rate, Time::us(1));
    net.connect(reverse.port(), sw.port(2), Rate::Gbps(100), Time::us(1));
    sw.routes().add_route(sender.address(), {0});
    sw.routes().add_route(sink.address(), {1});
    auto gate = std::make_unique<ScriptedDrain>();
    drain = gate.get();
    sw.egress(1).set_gate(std::move(gate));
  }

  DciLinkParams link() const {
    return DciLinkParams{.rate = Rate::Gbps(100),
                         .propagation = one_way,
                         .ingress_latency = Time::ns(500),
                         .max_frame_bytes = kMaxFrame};
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
  uint64_t drained() { return sw.egress(1).counters().tx_bytes[kDciPrio]; }
};

}  // namespace bifrost::net::testing
