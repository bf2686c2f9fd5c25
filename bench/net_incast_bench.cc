// Cost of the simulated network per packet hop. An N:1 incast through one switch with PFC
// (N senders at 100 Gb/s, 2 MiB each, lossless priority 3) is compared, in the same run,
// with the floor of any event-driven packet simulator: the bare event kernel moving a pooled
// packet through two events per hop (arrival and transmitter wake-up) with no network logic.
// Items are packet hops (data frames delivered by a link).
#include <benchmark/benchmark.h>

#include <deque>
#include <vector>

#include "bifrost/net/flowctl/pfc.h"
#include "bifrost/net/host.h"
#include "bifrost/net/line_rate_flows.h"
#include "bifrost/net/link.h"
#include "bifrost/net/switch.h"
#include "bifrost/sim/event_kernel.h"
#include "support/ratio_report.h"

namespace {

using namespace bifrost;
using namespace bifrost::net;

world::Ipv4 ip(int i) {
  return world::Ipv4::of(10, 0, static_cast<uint8_t>(i / 250), static_cast<uint8_t>(i % 250 + 1));
}

struct IncastResult {
  uint64_t hops = 0;
  uint64_t events = 0;
  uint64_t pauses = 0;
};

// Builds and runs one incast.
IncastResult run_incast(int senders) {
  sim::EventKernel kernel;
  std::deque<Host> hosts;
  std::deque<Link> links;
  SwitchConfig sc;
  sc.ports = static_cast<uint32_t>(senders) + 1;
  sc.processing_latency = Time::ns(500);
  sc.buffer.total = Bytes::MiB(4);
  Switch sw(kernel, sc);
  const auto receiver_port = static_cast<uint32_t>(senders);
  Host& receiver = hosts.emplace_back(kernel, HostConfig{.addresses = {ip(senders)}});
  LinkConfig lc{.rate = Rate::Gbps(100), .propagation = Time::us(1)};
  links.emplace_back(kernel, lc, sw.port(receiver_port), receiver.port());
  sw.routes().add_route(receiver.address(), {receiver_port});
  PfcConfig pfc;
  pfc.xoff = Threshold::fixed(Bytes(30'000));
  pfc.headroom = Bytes(40'000);
  LineRateFlows flows(kernel, 1024);
  for (int i = 0; i < senders; ++i) {
    const auto port = static_cast<uint32_t>(i);
    Host& h = hosts.emplace_back(kernel, HostConfig{.addresses = {ip(i)}});
    links.emplace_back(kernel, lc, h.port(), sw.port(port));
    sw.routes().add_route(h.address(), {port});
    install_pfc(kernel, pfc, sw, port, h.nic());
    flows.add(LineRateFlowSpec{.src = &h, .dst = &receiver, .bytes = 2048 * 1024, .priority = 3});
  }
  kernel.run();
  IncastResult r;
  for (const Link& l : links) {
    r.hops +=
        l.a_to_b().counters().data_frames_delivered + l.b_to_a().counters().data_frames_delivered;
  }
  r.events = kernel.executed();
  for (uint32_t i = 0; i < sc.ports - 1; ++i) {
    const auto* pfc_in = static_cast<const PfcIngress*>(sw.ingress_flow_control(i));
    r.pauses += pfc_in->counters().pause_sent[3];
  }
  return r;
}

void incast_network(benchmark::State& state) {
  IncastResult total;
  for (auto _ : state) {
    const IncastResult r = run_incast(static_cast<int>(state.range(0)));
    total.hops += r.hops;
    total.events += r.events;
    total.pauses += r.pauses;
  }
  state.SetItemsProcessed(static_cast<int64_t>(total.hops));
  state.counters["events_per_hop"] =
      static_cast<double>(total.events) / static_cast<double>(total.hops);
  state.counters["pauses_per_hop"] =
      static_cast<double>(total.pauses) / static_cast<double>(total.hops);
}

// The floor: per hop, one arrival event carrying a pooled packet and one wake-up event.
struct FloorContext {
  sim::EventKernel kernel;
  uint64_t remaining = 0;
  void hop(world::PacketPtr p) {
    if (remaining == 0) return;
    --remaining;
    kernel.at(kernel.now() + Time::ns(88), [] {});
    kernel.at(kernel.now() + Time::ns(1088),
              [this, q = std::move(p)]() mutable { hop(std::move(q)); });
  }
};

void incast_baseline(benchmark::State& state) {
  const uint64_t hops = run_incast(static_cast<int>(state.range(0))).hops;  // same work
  uint64_t done = 0;
  for (auto _ : state) {
    FloorContext ctx;
    ctx.remaining = hops;
    for (int64_t i = 0; i < state.range(0) * 4; ++i) ctx.hop(world::make_packet());
    ctx.kernel.run();
    done += hops;
  }
  state.SetItemsProcessed(static_cast<int64_t>(done));
}

BENCHMARK(incast_network)->Name("incast/network")->Arg(8)->Arg(32)->Unit(benchmark::kMillisecond);
BENCHMARK(incast_baseline)->Name("incast/baseline")->Arg(8)->Arg(32)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  return bifrost::bench::run_with_ratios(argc, argv);
}
