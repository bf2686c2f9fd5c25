// Scenario flows over the Bifröst transport: every flow delivered exactly once through a lossy
// fabric (no PFC, a small shared buffer that drops), in both reliability modes; the closed loop
// keeps exactly its I/O depth outstanding per thread; [transport] tables parse into the knobs.
#include "bifrost/sim/transport_flows.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "bifrost/core/error.h"
#include "bifrost/sim/closed_loop.h"
#include "bifrost/sim/network.h"
#include "bifrost/sim/topology/graph.h"
#include "lossy_fabric.h"
#include "make_flow.h"
#include "scenario_text.h"

namespace bifrost::sim {
namespace {

using testing::parse;

workload::Flow flow(uint64_t id, uint32_t src, uint32_t dst, uint64_t bytes, Time start) {
  return testing::make_flow(id, src, dst, bytes, start);
}

// A star of `hosts` 100 Gb/s hosts, 1 us links, MTU 4096, no PFC and a `buffer` switch.
std::string star(int hosts, const std::string& buffer) {
  return "[simulation]\nmtu = 4096\n[topology]\nkind = \"star\"\nhosts = " + std::to_string(hosts) +
         "\n[switch]\nbuffer = \"" + buffer + "\"\n";
}

struct Bench {
  explicit Bench(const std::string& text, transport::Reliability reliability)
      : scenario(parse(text)),
        network(kernel, topology::describe(scenario.topology),
                testing::lossy_network_config(scenario)) {
    TransportFlowsConfig c;
    c.transport.reliability = reliability;
    c.transport.mtu = 4096;
    c.transport.base_rtt = Time::us(10);
    c.transport.min_rto = Time::us(200);
    flows = std::make_unique<TransportFlows>(kernel, network, c);
  }
  uint64_t drops() const { return testing::switch_drops(network); }

  scenario::Scenario scenario;
  EventKernel kernel;
  Network network;
  std::unique_ptr<TransportFlows> flows;
};

class TransportFlowsDelivery : public ::testing::TestWithParam<transport::Reliability> {};

TEST_P(TransportFlowsDelivery, EveryFlowExactlyOnceThroughALossyIncast) {
  Bench b(star(6, "300KB"), GetParam());
  // Hosts 1..5 send into host 0 at once (SENDs, chunked WRITEs and one flow of two messages),
  // and host 0 answers each: the shared buffer must overflow.
  const uint64_t sizes[] = {100, 20'000, 300'000, 1'000'000, 5'000'000};
  std::vector<workload::Flow> all;
  for (uint32_t src = 1; src <= 5; ++src) {
    for (const uint64_t size : sizes) {
      all.push_back(flow(all.size(), src, 0, size, Time::zero()));
    }
    all.push_back(flow(all.size(), 0, src, 50'000, Time::us(5)));
  }
  for (const auto& f : all) b.flows->add(f);
  for (int slice = 0; slice < 2000 && b.flows->completed() < all.size(); ++slice) {
    b.kernel.run_until(b.kernel.now() + Time::us(100));
  }
  EXPECT_GT(b.drops(), 0u) << "the fabric should have dropped packets";
  ASSERT_EQ(b.flows->completed(), all.size());
  for (const auto& f : all) {
    const RnicFlowRecord& r = b.flows->records()[f.id];
    EXPECT_TRUE(r.complete && !r.failed) << "flow " << f.id;
    EXPECT_EQ(b.flows->messages(f.id), f.size.count() > 4 * 1024 * 1024 ? 2u : 1u);
    EXPECT_EQ(b.flows->deliveries(f.id), b.flows->messages(f.id)) << "flow " << f.id;
    EXPECT_GT(r.finish, f.start);
  }
  EXPECT_EQ(b.flows->unidentified_deliveries(), 0u);
  const TransportTotals t = b.flows->totals();
  EXPECT_EQ(t.connections, 5u);  // one per pair of hosts, carrying both directions
  EXPECT_EQ(t.messages, all.size() + 5);
  // The drops cost retransmissions: software ones over UC, the NIC's over RC.
  if (GetParam() == transport::Reliability::software_uc) {
    EXPECT_GT(t.retransmitted_wqes, 0u);
  } else {
    EXPECT_GT(b.flows->counters().tx_retransmitted + t.retransmitted_wqes, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, TransportFlowsDelivery,
                         ::testing::Values(transport::Reliability::software_uc,
                                           transport::Reliability::hardware_rc),
                         [](const auto& mode) {
                           return mode.param == transport::Reliability::software_uc ? "uc" : "rc";
                         });

TEST(TransportFlows, RejectsFlowsOutOfOrder) {
  Bench b(star(3, "1MB"), transport::Reliability::software_uc);
  EXPECT_THROW(b.flows->add(flow(1, 1, 0, 10, Time::zero())), Error);
  EXPECT_THROW(b.flows->add(flow(0, 1, 1, 10, Time::zero())), Error);
}

TEST(ClosedLoop, KeepsExactlyDepthOutstandingPerThread) {
  Bench b(star(4, "2MB"), transport::Reliability::software_uc);
  ClosedLoopSpec spec;
  spec.loop.clients = {1, 2, 3};
  spec.loop.server = 0;
  spec.loop.threads = 2;
  spec.loop.depth = 3;
  spec.loop.size = Bytes(20'000);
  spec.loop.start = Time::us(10);
  spec.loop.duration = Time::us(400);
  std::vector<workload::Flow> requests;
  ClosedLoop loop(b.kernel, *b.flows, spec, requests);
  const Time end = spec.loop.start + spec.loop.duration;
  // Between events every thread has exactly `depth` outstanding: a completion issues the next.
  while (b.kernel.now() < end - Time::us(1)) {
    b.kernel.run_until(b.kernel.now() + Time::ns(700));
    if (b.kernel.now() < spec.loop.start) continue;
    for (uint32_t t = 0; t < loop.thread_count(); ++t) {
      ASSERT_EQ(loop.outstanding(t), spec.loop.depth)
          << "thread " << t << " at " << b.kernel.now().microseconds();
    }
  }
  for (int i = 0; i < 1000 && !loop.finished(); ++i) {
    b.kernel.run_until(b.kernel.now() + Time::us(10));
  }
  ASSERT_TRUE(loop.finished());
  const ClosedLoopResult r = loop.result();
  EXPECT_EQ(r.max_outstanding, spec.loop.depth);
  EXPECT_EQ(r.completed, r.issued);
  EXPECT_EQ(r.issued, requests.size());
  // It looped: far more requests than the first round of clients x threads x depth.
  EXPECT_GT(r.issued, 5u * spec.loop.clients.size() * spec.loop.threads * spec.loop.depth);
  // The records agree: when a client issues a request before the end, exactly threads x depth
  // of its requests are in flight (the one just issued included, those finished not).
  for (const auto& q : requests) {
    if (q.start == spec.loop.start) continue;
    uint32_t in_flight = 0;
    for (const auto& other : requests) {
      const RnicFlowRecord& o = b.flows->records()[other.id];
      if (other.src == q.src && other.start <= q.start && o.finish > q.start) ++in_flight;
    }
    ASSERT_EQ(in_flight, spec.loop.threads * spec.loop.depth) << "request " << q.id;
  }
}

// start_spread: each thread's first requests go at its own instant within the spread, every
// client's threads all over it; without one, every thread at `start`.
TEST(ClosedLoop, AStartSpreadStaggersTheThreadsFirstRequests) {
  for (const Time spread : {Time::zero(), Time::us(100)}) {
    SCOPED_TRACE(spread.microseconds());
    Bench b(star(3, "2MB"), transport::Reliability::software_uc);
    ClosedLoopSpec spec;
    spec.loop.clients = {1, 2};
    spec.loop.threads = 8;
    spec.loop.size = Bytes(4 << 20);  // none completes within the spread
    spec.loop.start = Time::us(10);
    spec.loop.duration = Time::us(300);
    spec.loop.start_spread = spread;
    std::vector<workload::Flow> requests;
    ClosedLoop loop(b.kernel, *b.flows, spec, requests);
    b.kernel.run_until(spec.loop.start + spread);
    ASSERT_EQ(requests.size(), 16u);  // every thread's first request, no second yet
    std::multiset<int64_t> instants;
    for (uint32_t t = 0; t < loop.thread_count(); ++t) {
      const Time at = loop.thread_start(t);
      EXPECT_GE(at, spec.loop.start);
      EXPECT_LE(at, spec.loop.start + spread);
      instants.insert(at.picoseconds());
    }
    std::multiset<int64_t> issued;
    for (const auto& q : requests) issued.insert(q.start.picoseconds());
    EXPECT_EQ(issued, instants);
    const std::set<int64_t> distinct(instants.begin(), instants.end());
    if (spread == Time::zero()) {
      EXPECT_EQ(distinct.size(), 1u);
      continue;
    }
    EXPECT_EQ(distinct.size(), 16u);
    // Both clients' threads reach into both halves of the spread.
    for (uint32_t client = 0; client < 2; ++client) {
      bool early = false, late = false;
      for (uint32_t t = client * 8; t < client * 8 + 8; ++t) {
        (loop.thread_start(t) < spec.loop.start + spread / 2 ? early : late) = true;
      }
      EXPECT_TRUE(early && late) << "client " << client;
    }
  }
}

TEST(ScenarioTransport, ParsesTheKnobs) {
  const auto sc = parse(star(3, "1MB") + R"(
[nic]
model = "rnic"
[transport]
kind = "bifrost-rc"
cc = "swift-md"
unit_size = "1KiB"
max_chunk = "32KiB"
chunk_loss_budget = 0.1
send_threshold = "8KiB"
base_rtt = "20us"
min_rto = "1ms"
rc_retry_cnt = 3
[[workload]]
kind = "closed_loop"
clients = "all"
server = 2
threads = 4
depth = 8
size = "32KiB"
duration = "2ms"
warmup = "1ms"
)");
  const scenario::TransportSpec& t = sc.transport;
  EXPECT_EQ(t.kind, scenario::TransportKind::bifrost_rc);
  EXPECT_EQ(t.cc.kind, transport::CcKind::swift_md);
  EXPECT_EQ(t.unit_size, Bytes(1024));
  EXPECT_EQ(t.max_chunk, Bytes(32 * 1024));
  EXPECT_EQ(t.chunk_loss_budget, 0.1);
  EXPECT_EQ(t.send_threshold, Bytes(8 * 1024));
  EXPECT_EQ(t.base_rtt, Time::us(20));
  EXPECT_EQ(t.min_rto, Time::ms(1));
  EXPECT_EQ(t.rc_retry_cnt, 3);
  const auto& loop = std::get<scenario::ClosedLoopWorkload>(sc.workloads[0].spec);
  EXPECT_EQ(loop.clients, (std::vector<uint32_t>{0, 1}));  // "all" but the server
  EXPECT_EQ(loop.threads, 4u);
  EXPECT_EQ(loop.depth, 8u);
  EXPECT_EQ(loop.warmup, Time::ms(1));
  EXPECT_EQ(parse(star(3, "1MB")).transport.kind, scenario::TransportKind::rc);
}

// The scenario runner carries a closed loop end to end and reports it.
TEST(ScenarioTransport, RunsAClosedLoopScenario) {
  const auto summary = testing::run(star(3, "1MB") + R"(
[nic]
model = "rnic"
[transport]
kind = "bifrost-uc"
base_rtt = "10us"
[[workload]]
kind = "incast"
senders = [1, 2]
receiver = 0
size = "64KiB"
[[workload]]
kind = "closed_loop"
clients = [1, 2]
server = 0
threads = 2
depth = 2
size = "16KiB"
duration = "300us"
warmup = "100us"
)");
  ASSERT_EQ(summary.closed_loops.size(), 1u);
  const ClosedLoopResult& r = summary.closed_loops[0].result;
  EXPECT_EQ(summary.finished, summary.flows);
  EXPECT_EQ(summary.flows, 2 + r.issued);
  EXPECT_GT(r.goodput_gbps, 1.0);
  EXPECT_LE(r.goodput_gbps, 100.0);
  EXPECT_EQ(summary.transport.connections, 2u + 4u);  // lane 0 for the incast, 2 per client
  EXPECT_EQ(summary.transport_unidentified, 0u);
}

}  // namespace
}  // namespace bifrost::sim
