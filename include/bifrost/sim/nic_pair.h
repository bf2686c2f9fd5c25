#pragma once
// Two soft RNICs joined by a LossyWire, with one connected QP pair and a registered buffer on
// each side: the bench on which NIC-level tests, benchmarks and single-QP experiments run.
// Side a is the requester in most uses; either side may post anything.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "bifrost/rnic/device.h"
#include "bifrost/rnic/host_memory.h"
#include "bifrost/sim/event_kernel.h"
#include "bifrost/sim/lossy_wire.h"

namespace bifrost::sim {

struct NicPairConfig {
  rnic::QpType type = rnic::QpType::rc;
  uint32_t mtu = 1024;
  LossyWireConfig wire{};
  // Applied to both devices (their names and GIDs are set by the pair), unless side b has its
  // own (a responder NIC sized differently from the requester's).
  rnic::DeviceConfig device{};
  std::optional<rnic::DeviceConfig> device_b;
  // RC timers: 4.096 us * 2^timeout; retry_cnt 0..7; rnr_retry 7 = infinite.
  uint8_t timeout = 14;  // 67 ms, as perftest sets
  uint8_t retry_cnt = 7;
  uint8_t rnr_retry = 7;
  uint8_t min_rnr_timer = 1;   // 10 us
  uint32_t first_psn = 0;      // both directions start here (tests use it for PSN wrap)
  uint32_t qkey = 0x11111111;  // UD
  // Each side's buffer [kBufferBase, kBufferBase + buffer_bytes), content-tracked.
  uint64_t buffer_bytes = uint64_t{1} << 32;
  size_t cq_entries = 1 << 20;
};

class NicPair {
 public:
  static constexpr uint64_t kBufferBase = 0x1000'0000'0000;

  struct Side {
    std::unique_ptr<rnic::Device> device;
    rnic::ProtectionDomain pd;
    rnic::CompletionQueue* cq = nullptr;  // send and receive completions
    rnic::QueuePair* qp = nullptr;
    std::unique_ptr<rnic::TokenMemory> memory;
    const rnic::MemoryRegion* mr = nullptr;  // the whole buffer, every access right
    // Polls every completion now in the CQ.
    std::vector<rnic::WorkCompletion> poll();
  };

  explicit NicPair(const NicPairConfig& config);
  NicPair(const NicPair&) = delete;
  NicPair& operator=(const NicPair&) = delete;

  // One more connected QP pair, a's QP to b's, sharing each side's CQ and buffer (and the
  // pair's attributes): many-QP benches.
  struct QpPair {
    rnic::QueuePair* a = nullptr;
    rnic::QueuePair* b = nullptr;
  };
  QpPair add_qp_pair();

  EventKernel& kernel() { return kernel_; }
  LossyWire& wire() { return *wire_; }
  Side& a() { return a_; }
  Side& b() { return b_; }
  const NicPairConfig& config() const { return config_; }

 private:
  void build(Side& side, int index);
  void connect(rnic::QueuePair& qp, const Side& peer, const rnic::QueuePair& peer_qp);

  NicPairConfig config_;
  EventKernel kernel_;
  std::unique_ptr<LossyWire> wire_;
  Side a_;
  Side b_;
};

}  // namespace bifrost::sim
