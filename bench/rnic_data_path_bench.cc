// The simulated cost of the soft RNIC's data path, two ways.
//
// 1. Wall-clock time per simulated packet through a sender NIC and a receiver NIC. Each engine
//    streams RC RDMA WRITEs of 64 KiB (MTU 1024, so 64 packets each) from one device to the
//    other over a loss-free LossyWire at 100 Gb/s, ACKs flowing back. The baseline moves the
//    same number of packets over the same wire and event kernel with no NIC at all: a trivial
//    sender keeps two pooled packets queued in the port and the receiver only counts them. Items
//    are data packets, so the ratio is (NIC-less floor) / (through both NICs) per packet, and
//    the ns_per_packet counter is the absolute cost (thread CPU time per data packet, ACK
//    handling included: one ACK per 8 data packets).
//
// 2. Memory per QP at 10,000 QPs. Two devices, 10,000 RC QPs each, every QP connected to its
//    peer and in RTS; heap growth is measured with mallinfo2() and divided by the 20,000 QPs.
//    Counters: heap_bytes_per_qp (simulator heap: verbs objects, engine state, hash maps) and
//    nic_bytes_per_qp (the NIC memory the engine models, Device::recovery_memory_bytes(10000)
//    / 10000, the FaSR paper's accounting).
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <ctime>
#include <memory>
#include <vector>

#include "bifrost/rnic/device.h"
#include "bifrost/rnic/work_request.h"
#include "bifrost/sim/event_kernel.h"
#include "bifrost/sim/lossy_wire.h"
#include "bifrost/sim/nic_pair.h"
#include "support/ratio_report.h"
#include "support/sim_bench.h"

namespace {

using namespace bifrost;
using rnic::recovery::EngineKind;

constexpr uint32_t kMtu = 1024;
constexpr uint32_t kMessageBytes = 64 * 1024;  // 64 packets per work request
constexpr uint64_t kSrc = sim::NicPair::kBufferBase;
constexpr uint64_t kDst = sim::NicPair::kBufferBase + (uint64_t{1} << 30);

// ---- packets through both NICs ------------------------------------------------------------

void packets_through_nics(benchmark::State& state, EngineKind engine) {
  const auto packets = static_cast<uint64_t>(state.range(0));
  constexpr uint64_t kPacketsPerMessage = kMessageBytes / kMtu;
  const uint64_t messages = (packets + kPacketsPerMessage - 1) / kPacketsPerMessage;
  sim::NicPairConfig c;
  c.mtu = kMtu;
  c.wire = bench::fast_wire();
  c.device.recovery.kind = engine;
  c.device.data_path.max_send_wr = static_cast<uint32_t>(messages) + 16;
  sim::NicPair pair(c);
  pair.a().memory->fill(kSrc, messages * kMessageBytes, 1);
  uint64_t sent = 0;
  double cpu_ns = 0;
  for (auto _ : state) {
    const double start = bench::thread_cpu_ns();
    const uint64_t before = pair.wire().counters(0).sent;
    for (uint64_t i = 0; i < messages; ++i) {
      rnic::SendWr wr;
      wr.wr_id = i;
      wr.opcode = rnic::WrOpcode::rdma_write;
      wr.sge = rnic::Sge{kSrc + i * kMessageBytes, kMessageBytes, pair.a().mr->lkey};
      wr.remote_addr = kDst + i * kMessageBytes;
      wr.rkey = pair.b().mr->rkey;
      pair.a().qp->post_send(wr);
    }
    pair.kernel().run();
    const auto done = pair.a().poll();
    if (done.size() != messages || done.back().status != rnic::WcStatus::success) {
      state.SkipWithError("not every WRITE completed successfully");
      return;
    }
    sent += pair.wire().counters(0).sent - before;
    cpu_ns += bench::thread_cpu_ns() - start;
  }
  state.SetItemsProcessed(static_cast<int64_t>(sent));
  state.counters["ns_per_packet"] = cpu_ns / static_cast<double>(sent);
  state.counters["acks_per_packet"] =
      static_cast<double>(pair.wire().counters(1).sent) / static_cast<double>(sent);
}

// The floor: the same wire and kernel, a sender that keeps two packets queued in its port (as
// the device does) and a receiver that counts. No NIC logic, no ACKs.
void packets_baseline(benchmark::State& state) {
  const auto packets = static_cast<uint64_t>(state.range(0));
  uint64_t moved = 0;
  double cpu_ns = 0;
  for (auto _ : state) {
    const double start = bench::thread_cpu_ns();
    sim::EventKernel kernel;
    sim::LossyWire wire(kernel, bench::fast_wire());
    uint64_t to_send = packets;
    uint64_t received = 0;
    world::PacketPort& out = wire.end(0);
    auto send_one = [&] {
      if (to_send == 0) return;
      --to_send;
      world::PacketPtr p = world::make_packet();
      p->roce.bth.opcode = wire::Opcode::kRcWriteMiddle;
      p->payload.length = kMtu;
      out.send(std::move(p));
    };
    out.set_transmit_handler([&send_one] { send_one(); });
    wire.end(1).set_receive_handler([&received](world::PacketPtr) { ++received; });
    send_one();
    send_one();
    kernel.run();
    if (received != packets) {
      state.SkipWithError("the baseline lost packets");
      return;
    }
    moved += received;
    cpu_ns += bench::thread_cpu_ns() - start;
  }
  state.SetItemsProcessed(static_cast<int64_t>(moved));
  state.counters["ns_per_packet"] = cpu_ns / static_cast<double>(moved);
}

// ---- memory per QP ---------------------------------------------------------------------------

size_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

void connect(rnic::QueuePair& qp, world::Ipv4 peer_ip, uint32_t peer_qpn) {
  using rnic::QpAttrMask;
  rnic::QpAttr attr;
  attr.state = rnic::QpState::init;
  attr.pkey_index = 0;
  attr.port = 1;
  attr.access_flags = rnic::Access::remote_write | rnic::Access::remote_read;
  qp.modify(attr, QpAttrMask::state | QpAttrMask::pkey_index | QpAttrMask::port |
                      QpAttrMask::access_flags);
  attr.state = rnic::QpState::rtr;
  attr.av.dest_ip = peer_ip;
  attr.path_mtu = kMtu;
  attr.dest_qp_num = peer_qpn;
  attr.rq_psn = 0;
  attr.max_dest_rd_atomic = 16;
  attr.min_rnr_timer = 1;
  qp.modify(attr, QpAttrMask::state | QpAttrMask::av | QpAttrMask::path_mtu |
                      QpAttrMask::dest_qp_num | QpAttrMask::rq_psn |
                      QpAttrMask::max_dest_rd_atomic | QpAttrMask::min_rnr_timer);
  attr.state = rnic::QpState::rts;
  attr.sq_psn = 0;
  attr.timeout = 14;
  attr.retry_cnt = 7;
  attr.rnr_retry = 7;
  attr.max_rd_atomic = 16;
  qp.modify(attr, QpAttrMask::state | QpAttrMask::sq_psn | QpAttrMask::timeout |
                      QpAttrMask::retry_cnt | QpAttrMask::rnr_retry | QpAttrMask::max_rd_atomic);
}

void qp_memory(benchmark::State& state, EngineKind engine) {
  const auto qps = static_cast<size_t>(state.range(0));
  double heap_per_qp = 0;
  double nic_per_qp = 0;
  for (auto _ : state) {
    sim::EventKernel kernel;
    std::unique_ptr<rnic::Device> dev[2];
    rnic::CompletionQueue* cq[2] = {};
    rnic::ProtectionDomain pd[2];
    for (int d = 0; d < 2; ++d) {
      rnic::DeviceConfig dc;
      dc.name = d == 0 ? "nic0" : "nic1";
      dc.gids = {world::Ipv4::of(10, 0, 0, static_cast<uint8_t>(d + 1))};
      dc.recovery.kind = engine;
      dev[d] = std::make_unique<rnic::Device>(kernel, dc);
      pd[d] = dev[d]->alloc_pd();
      cq[d] = &dev[d]->create_cq(1024);
    }
    std::vector<rnic::QueuePair*> side[2];
    side[0].reserve(qps);
    side[1].reserve(qps);
    const size_t before = heap_in_use();
    for (int d = 0; d < 2; ++d) {
      for (size_t i = 0; i < qps; ++i) {
        side[d].push_back(&dev[d]->create_qp(pd[d], rnic::QpType::rc, *cq[d], *cq[d]));
      }
    }
    for (size_t i = 0; i < qps; ++i) {
      connect(*side[0][i], dev[1]->gids().front(), side[1][i]->qp_num());
      connect(*side[1][i], dev[0]->gids().front(), side[0][i]->qp_num());
    }
    const size_t after = heap_in_use();
    heap_per_qp = static_cast<double>(after - before) / static_cast<double>(2 * qps);
    nic_per_qp = static_cast<double>(dev[0]->recovery_memory_bytes(qps)) / static_cast<double>(qps);
  }
  state.counters["heap_bytes_per_qp"] = heap_per_qp;
  state.counters["nic_bytes_per_qp"] = nic_per_qp;
}

BENCHMARK(packets_baseline)
    ->Name("rnic_packet/baseline")
    ->Arg(1 << 14)
    ->Arg(1 << 16)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(packets_through_nics, gbn, EngineKind::gbn)
    ->Name("rnic_packet/gbn")
    ->Arg(1 << 14)
    ->Arg(1 << 16)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(packets_through_nics, irn, EngineKind::irn)
    ->Name("rnic_packet/irn")
    ->Arg(1 << 14)
    ->Arg(1 << 16)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(packets_through_nics, srnic, EngineKind::srnic)
    ->Name("rnic_packet/srnic")
    ->Arg(1 << 14)
    ->Arg(1 << 16)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(qp_memory, gbn, EngineKind::gbn)
    ->Name("rnic_qp_memory/gbn")
    ->Arg(10000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(qp_memory, irn, EngineKind::irn)
    ->Name("rnic_qp_memory/irn")
    ->Arg(10000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(qp_memory, srnic, EngineKind::srnic)
    ->Name("rnic_qp_memory/srnic")
    ->Arg(10000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  return bifrost::bench::run_with_ratios(argc, argv);
}
