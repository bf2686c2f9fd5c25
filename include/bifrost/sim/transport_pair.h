#pragma once
// Two soft RNICs joined by a LossyWire, one transport endpoint on each and (unless asked not to)
// one connected Bifröst connection, plus a content-tracked application region on each side:
// the bench on which transport tests, benchmarks and single-connection experiments run.
#include <cstdint>
#include <memory>

#include "bifrost/rnic/device.h"
#include "bifrost/rnic/host_memory.h"
#include "bifrost/sim/event_kernel.h"
#include "bifrost/sim/lossy_wire.h"
#include "bifrost/transport/endpoint.h"

namespace bifrost::sim {

struct TransportPairConfig {
  transport::TransportConfig transport{};
  LossyWireConfig wire{};
  rnic::DeviceConfig device{};  // applied to both devices (names and GIDs are set by the pair)
  transport::EndpointConfig endpoint{};
  uint64_t app_bytes = uint64_t{1} << 36;  // each side's region at kAppBase
  // false: no Bifröst connection (the caller builds another protocol's on the endpoints).
  bool bifrost_connection = true;
};

class TransportPair {
 public:
  static constexpr uint64_t kAppBase = 0x7000'0000'0000;

  struct Side {
    std::unique_ptr<rnic::Device> device;
    std::unique_ptr<transport::Endpoint> endpoint;
    transport::Connection* connection = nullptr;  // null without bifrost_connection
    std::unique_ptr<rnic::TokenMemory> app;
    const rnic::MemoryRegion* app_region = nullptr;
  };

  explicit TransportPair(const TransportPairConfig& config);
  TransportPair(const TransportPair&) = delete;
  TransportPair& operator=(const TransportPair&) = delete;

  EventKernel& kernel() { return kernel_; }
  LossyWire& wire() { return *wire_; }
  Side& side(int i) { return i == 0 ? a_ : b_; }

 private:
  void build(Side& side, int index);

  TransportPairConfig config_;
  EventKernel kernel_;
  std::unique_ptr<LossyWire> wire_;
  Side a_;
  Side b_;
};

}  // namespace bifrost::sim
