// The cost of Bifröst's software control path, separated from the soft RNIC's.
//
// Every variant moves the same messages between two soft RNICs over a loss-free 100 Gb/s
// LossyWire (RTT 6 us, MTU 4096) and reports thread CPU time per message:
//   baseline  the soft RNIC alone: plain RC verbs, a SEND per message up to 32 KiB (receives
//             pre-posted), one WRITE per larger message, completions polled: the data path
//             every variant pays;
//   rc        the transport in hardware_rc mode (RC QPs, no software ACKs, CC "none");
//   uc        the transport in software_uc mode (UC QPs, software ACKs on the UD QP, Swift).
// So ns_per_message(rc or uc) - ns_per_message(baseline) is the control path's own cost, and
// the ratio report prints baseline / variant throughput. Items are messages; ns_per_chunk
// divides by the WRITE chunks (plus SENDs) the transport posted.
#include <benchmark/benchmark.h>

#include <ctime>
#include <vector>

#include "bifrost/rnic/work_request.h"
#include "bifrost/sim/nic_pair.h"
#include "bifrost/sim/transport_pair.h"
#include "support/ratio_report.h"
#include "support/sim_bench.h"

namespace {

using namespace bifrost;

constexpr int kMessages = 512;
constexpr uint32_t kSendThreshold = 32 * 1024;

void report(benchmark::State& state, double cpu_ns, uint64_t messages, uint64_t wqes) {
  state.SetItemsProcessed(static_cast<int64_t>(messages));
  state.counters["ns_per_message"] = cpu_ns / static_cast<double>(messages);
  if (wqes > 0) state.counters["ns_per_wqe"] = cpu_ns / static_cast<double>(wqes);
}

void messages_baseline(benchmark::State& state) {
  const auto size = static_cast<uint32_t>(state.range(0));
  const bool by_send = size <= kSendThreshold;
  sim::NicPairConfig c;
  c.mtu = 4096;
  c.wire = bench::fast_wire();
  c.device.data_path.max_send_wr = kMessages + 16;
  c.device.data_path.max_recv_wr = kMessages + 16;
  sim::NicPair pair(c);
  constexpr uint64_t kSrc = sim::NicPair::kBufferBase;
  constexpr uint64_t kDst = sim::NicPair::kBufferBase + (uint64_t{1} << 31);
  pair.a().memory->fill(kSrc, uint64_t{size} * kMessages, 1);
  uint64_t moved = 0;
  double cpu_ns = 0;
  for (auto _ : state) {
    const double start = bench::thread_cpu_ns();
    for (int i = 0; i < kMessages && by_send; ++i) {
      rnic::RecvWr r;
      r.wr_id = static_cast<uint64_t>(i);
      r.sge = rnic::Sge{kDst + uint64_t{size} * i, size, pair.b().mr->lkey};
      pair.b().qp->post_recv(r);
    }
    for (int i = 0; i < kMessages; ++i) {
      rnic::SendWr wr;
      wr.wr_id = static_cast<uint64_t>(i);
      wr.opcode = by_send ? rnic::WrOpcode::send : rnic::WrOpcode::rdma_write;
      wr.sge = rnic::Sge{kSrc + uint64_t{size} * i, size, pair.a().mr->lkey};
      wr.remote_addr = kDst + uint64_t{size} * i;
      wr.rkey = pair.b().mr->rkey;
      pair.a().qp->post_send(wr);
    }
    pair.kernel().run();
    const auto sender = pair.a().poll();
    const auto receiver = pair.b().poll();
    if (sender.size() != kMessages || (by_send && receiver.size() != kMessages)) {
      state.SkipWithError("not every message completed");
      return;
    }
    moved += kMessages;
    cpu_ns += bench::thread_cpu_ns() - start;
  }
  report(state, cpu_ns, moved, moved);
}

void messages_transport(benchmark::State& state, transport::Reliability reliability) {
  const auto size = static_cast<uint64_t>(state.range(0));
  sim::TransportPairConfig c;
  c.wire = bench::fast_wire();
  c.transport.reliability = reliability;
  c.transport.cc.kind = reliability == transport::Reliability::software_uc
                            ? transport::CcKind::swift
                            : transport::CcKind::none;
  c.transport.base_rtt = Time::us(10);
  sim::TransportPair pair(c);
  sim::TransportPair::Side& a = pair.side(0);
  a.app->fill(sim::TransportPair::kAppBase, size * kMessages, 1);
  uint64_t delivered = 0;
  pair.side(1).connection->set_delivery_handler(
      [&delivered](const transport::Delivery&) { ++delivered; });
  uint64_t moved = 0;
  double cpu_ns = 0;
  for (auto _ : state) {
    const double start = bench::thread_cpu_ns();
    const uint64_t before = delivered;
    for (int i = 0; i < kMessages; ++i) {
      a.connection->send(transport::MessageBuffer{
          .region = a.app_region, .addr = sim::TransportPair::kAppBase + size * i, .length = size});
    }
    pair.kernel().run();
    if (delivered - before != kMessages || !a.connection->idle()) {
      state.SkipWithError("not every message was delivered");
      return;
    }
    moved += kMessages;
    cpu_ns += bench::thread_cpu_ns() - start;
  }
  report(state, cpu_ns, moved, a.connection->sender_stats().wqes_posted);
}

void messages_rc(benchmark::State& state) {
  messages_transport(state, transport::Reliability::hardware_rc);
}
void messages_uc(benchmark::State& state) {
  messages_transport(state, transport::Reliability::software_uc);
}

void sizes(benchmark::internal::Benchmark* b) {
  b->Arg(64)->Arg(4096)->Arg(65536)->Arg(1 << 20)->Unit(benchmark::kMillisecond);
}

BENCHMARK(messages_baseline)->Name("messages/baseline")->Apply(sizes);
BENCHMARK(messages_rc)->Name("messages/rc")->Apply(sizes);
BENCHMARK(messages_uc)->Name("messages/uc")->Apply(sizes);

}  // namespace

int main(int argc, char** argv) {
  return bifrost::bench::run_with_ratios(argc, argv);
}
