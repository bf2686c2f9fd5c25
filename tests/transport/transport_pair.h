#pragma once
// Two soft RNICs on a LossyWire, one endpoint each and one connected Bifröst connection, plus
// application memory and a ledger that checks every delivery: which message it is (its first 8
// bytes carry its index), that its bytes are intact, and that it arrives exactly once.
#include <cstdint>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "bifrost/rnic/device.h"
#include "bifrost/rnic/host_memory.h"
#include "bifrost/sim/event_kernel.h"
#include "bifrost/sim/lossy_wire.h"
#include "bifrost/transport/endpoint.h"

namespace bifrost::transport::testing {

struct TransportPairConfig {
  TransportConfig transport{};
  sim::LossyWireConfig wire{};
  rnic::DeviceConfig device{};
  EndpointConfig endpoint{};
};

class TransportPair {
 public:
  static constexpr uint64_t kAppBase = 0x7000'0000'0000;
  static constexpr uint64_t kAppBytes = uint64_t{1} << 36;

  struct Side {
    std::unique_ptr<rnic::Device> device;
    std::unique_ptr<Endpoint> endpoint;
    Connection* connection = nullptr;
    std::unique_ptr<rnic::TokenMemory> app;
    const rnic::MemoryRegion* app_region = nullptr;
    uint64_t next_addr = kAppBase;
    // Ledger of what this side sent (by index) and what it received.
    struct Sent {
      uint64_t addr = 0;
      uint64_t length = 0;
      bool completed = false;
    };
    std::vector<Sent> sent;
    std::vector<uint32_t> received_count;  // of the peer's messages, by index
    uint64_t corrupt = 0;                  // deliveries whose bytes differ from what was sent
    uint64_t unknown = 0;                  // deliveries naming no message
  };

  explicit TransportPair(const TransportPairConfig& config);

  sim::EventKernel& kernel() { return kernel_; }
  sim::LossyWire& wire() { return *wire_; }
  Side& side(int i) { return i == 0 ? a_ : b_; }

  // Sends a message of `length` bytes (at least 8) from side `from` with fresh content.
  uint64_t send(int from, uint64_t length);
  // Runs until every message sent so far completed and was delivered, or `limit` passes.
  // Returns true if everything completed.
  bool run_until_done(Time limit);
  // Every message sent was delivered exactly once, intact, and completed.
  ::testing::AssertionResult all_delivered_once() const;

 private:
  void build(Side& side, int index);
  void on_delivery(int to, const Delivery& delivery);
  bool done() const;

  TransportPairConfig config_;
  sim::EventKernel kernel_;
  std::unique_ptr<sim::LossyWire> wire_;
  Side a_;
  Side b_;
};

}  // namespace bifrost::transport::testing
