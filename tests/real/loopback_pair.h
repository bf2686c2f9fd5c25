#pragma once
// Two soft RNICs in one process talking RoCEv2 over loopback UDP: each device has its own
// 127.x.y.z address (chosen from the pid so parallel test processes do not collide on port
// 4791), its own UdpPort and a ByteMemory buffer registered with every right.
#include <unistd.h>

#include <memory>
#include <vector>

#include "bifrost/real/device_settings.h"
#include "bifrost/real/event_loop.h"
#include "bifrost/real/udp_port.h"
#include "bifrost/rnic/connect.h"
#include "bifrost/rnic/device.h"
#include "bifrost/rnic/host_memory.h"

namespace bifrost::real::testing {

// 127.A.B.host with A.B taken from the pid: the whole of 127/8 is local on Linux.
inline world::Ipv4 loopback_address(uint8_t host) {
  const auto pid = static_cast<uint32_t>(::getpid());
  return world::Ipv4::of(127, static_cast<uint8_t>(100 + pid % 100),
                         static_cast<uint8_t>((pid / 100) % 250), host);
}

struct LoopbackPairConfig {
  rnic::QpType type = rnic::QpType::rc;
  uint32_t mtu = 4096;
  uint64_t buffer_bytes = 1 << 22;
  uint32_t port_queue_packets = 32;
  uint8_t timeout = 10;  // 4 ms
};

class LoopbackPair {
 public:
  static constexpr uint64_t kBase = 0x10000;

  struct Side {
    std::unique_ptr<UdpPort> port;
    std::unique_ptr<rnic::Device> device;
    rnic::CompletionQueue* cq = nullptr;
    rnic::QueuePair* qp = nullptr;
    std::unique_ptr<rnic::ByteMemory> memory;
    const rnic::MemoryRegion* mr = nullptr;
    world::Ipv4 ip;
  };

  explicit LoopbackPair(const LoopbackPairConfig& config = {}) : config_(config) {
    build(a_, 1);
    build(b_, 2);
    connect(a_, b_);
    connect(b_, a_);
  }
  ~LoopbackPair() {
    // Devices before ports: a device detaches from its port when destroyed.
    a_.device.reset();
    b_.device.reset();
  }

  EventLoop& loop() { return loop_; }
  Side& a() { return a_; }
  Side& b() { return b_; }

  // Runs the loop until `done` or 10 s pass; returns done().
  bool run_until(const std::function<bool()>& done) {
    return loop_.run_until(done, loop_.now() + Time::s(10));
  }
  std::vector<rnic::WorkCompletion> poll(Side& side) {
    std::vector<rnic::WorkCompletion> out(64);
    out.resize(side.cq->poll(out.size(), out));
    return out;
  }
  // Runs until `side` has a completion and returns it (fails the test after 10 s).
  rnic::WorkCompletion wait_completion(Side& side) {
    std::vector<rnic::WorkCompletion> one(1);
    const bool got = run_until([&] { return side.cq->size() > 0; });
    EXPECT_TRUE(got) << "no completion within 10 s";
    if (!got) return {};
    side.cq->poll(1, one);
    return one[0];
  }

 private:
  void build(Side& side, uint8_t host) {
    side.ip = loopback_address(host);
    side.port = std::make_unique<UdpPort>(
        loop_, UdpPortConfig{.local_addresses = {side.ip}, .lend_payloads = true});
    rnic::DeviceConfig dc;
    dc.name = host == 1 ? "real-a" : "real-b";
    dc.gids = {side.ip};
    real::apply_real_world_settings(dc);
    dc.port_queue_packets = config_.port_queue_packets;
    side.device = std::make_unique<rnic::Device>(loop_, dc);
    side.device->attach(*side.port);
    const rnic::ProtectionDomain pd = side.device->alloc_pd();
    side.cq = &side.device->create_cq(4096);
    side.qp = &side.device->create_qp(pd, config_.type, *side.cq, *side.cq);
    side.memory = std::make_unique<rnic::ByteMemory>(kBase, config_.buffer_bytes);
    side.mr = &side.device->reg_mr(
        pd, kBase, config_.buffer_bytes,
        rnic::Access::local_write | rnic::Access::remote_write | rnic::Access::remote_read,
        side.memory.get());
  }
  void connect(Side& side, const Side& peer) {
    rnic::QpConnection c;
    c.dest_ip = peer.ip;
    c.dest_qp_num = peer.qp->qp_num();
    c.rq_psn = c.sq_psn = 100;
    c.path_mtu = config_.mtu;
    c.timeout = config_.timeout;
    rnic::connect_qp(*side.qp, c);
  }

  LoopbackPairConfig config_;
  EventLoop loop_;
  Side a_;
  Side b_;
};

}  // namespace bifrost::real::testing
