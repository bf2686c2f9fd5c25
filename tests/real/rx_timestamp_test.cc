// Kernel receive timestamps become CQE timestamps: a datagram that waits in the socket is
// stamped with the kernel's arrival time, not with the moment the device got to it.
#include <gtest/gtest.h>

#include <thread>

#include "bifrost/rnic/work_request.h"
#include "loopback_pair.h"

namespace bifrost::real {
namespace {

constexpr uint64_t kBase = 0x10000;
constexpr uint32_t kBytes = 1 << 16;

// One device on its own event loop, so the receiver's loop can be kept from running while
// the sender's runs.
struct Nic {
  explicit Nic(uint8_t host) : ip(testing::loopback_address(host)) {
    port = std::make_unique<UdpPort>(loop, UdpPortConfig{.local_addresses = {ip}});
    rnic::DeviceConfig dc;
    dc.name = host == 1 ? "ts-a" : "ts-b";
    dc.gids = {ip};
    real::apply_real_world_settings(dc);
    device = std::make_unique<rnic::Device>(loop, dc);
    device->attach(*port);
    const rnic::ProtectionDomain pd = device->alloc_pd();
    cq = &device->create_cq(64);
    qp = &device->create_qp(pd, rnic::QpType::uc, *cq, *cq);
    memory = std::make_unique<rnic::ByteMemory>(kBase, kBytes);
    mr = &device->reg_mr(pd, kBase, kBytes, rnic::Access::local_write, memory.get());
  }
  ~Nic() { device.reset(); }
  void connect(const Nic& peer) {
    rnic::QpConnection c;
    c.dest_ip = peer.ip;
    c.dest_qp_num = peer.qp->qp_num();
    c.rq_psn = c.sq_psn = 1;
    rnic::connect_qp(*qp, c);
  }

  world::Ipv4 ip;
  EventLoop loop;
  std::unique_ptr<UdpPort> port;
  std::unique_ptr<rnic::Device> device;
  rnic::CompletionQueue* cq = nullptr;
  rnic::QueuePair* qp = nullptr;
  std::unique_ptr<rnic::ByteMemory> memory;
  const rnic::MemoryRegion* mr = nullptr;
};

TEST(RxTimestamp, ReceiveCompletionCarriesTheKernelArrivalTime) {
  Nic a(1), b(2);
  a.connect(b);
  b.connect(a);
  // Linux turns receive timestamping on for the whole stack from a work queue after the first
  // socket asks for it; until then a datagram is stamped when it is read, not when it arrived.
  // So a fresh process's first datagrams look unqueued: let one go by and give the kernel time.
  auto exchange = [&](uint64_t wr_id) {
    b.qp->post_recv(rnic::RecvWr{wr_id, rnic::Sge{kBase, 4096, b.mr->lkey}});
    rnic::SendWr w;
    w.wr_id = wr_id;
    w.opcode = rnic::WrOpcode::send;
    w.sge = rnic::Sge{kBase, 100, a.mr->lkey};
    const uint64_t sent = a.port->counters().tx_datagrams;
    a.qp->post_send(w);
    return a.loop.run_until([&] { return a.port->counters().tx_datagrams == sent + 1; },
                            a.loop.now() + Time::s(10));
  };
  ASSERT_TRUE(exchange(6));
  ASSERT_TRUE(b.loop.run_until([&] { return b.cq->size() > 0; }, b.loop.now() + Time::s(10)));
  std::vector<rnic::WorkCompletion> warm(1);
  ASSERT_EQ(b.cq->poll(1, warm), 1u);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(exchange(7));
  // The datagram now waits in b's socket while b's loop does not run.
  constexpr Time kWait = Time::ms(20);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(b.loop.run_until([&] { return b.cq->size() > 0; }, b.loop.now() + Time::s(10)));
  std::vector<rnic::WorkCompletion> wc(1);
  ASSERT_EQ(b.cq->poll(1, wc), 1u);
  EXPECT_EQ(wc[0].wr_id, 7u);
  ASSERT_NE(b.port->last_rx_kernel_time(), Time::zero()) << "the kernel gave no timestamp";
  // Exactly the kernel's arrival time on the NIC clock ...
  EXPECT_EQ(wc[0].hw_timestamp, b.device->clock().hw_time(b.port->last_rx_kernel_time()));
  // ... which is before the wait, so the stamp is not the processing time.
  EXPECT_GE(b.device->hw_time() - wc[0].hw_timestamp, kWait);
  // The port's mean over both datagrams: the warm-up one was read at once, this one waited.
  EXPECT_GE(b.port->mean_rx_queueing(), kWait / 2);
}

}  // namespace
}  // namespace bifrost::real
