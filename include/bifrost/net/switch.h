#pragma once
// An output-queued switch with a shared-buffer MMU. A data frame entering port i waits the
// processing latency (as part of its arrival event), takes its priority from its DSCP, is
// routed (static route, else ECMP), admitted or dropped by the buffer, possibly ECN-marked,
// and queued on the egress port. Flow control is plugged in per ingress port
// (IngressFlowControl) and per egress port (EgressGate); the switch knows only the interfaces.
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "bifrost/core/rng.h"
#include "bifrost/net/dscp_map.h"
#include "bifrost/net/egress_port.h"
#include "bifrost/net/flowctl/flow_control.h"
#include "bifrost/net/ingress_controls.h"
#include "bifrost/net/link_end.h"
#include "bifrost/net/red_ecn.h"
#include "bifrost/net/routing_table.h"
#include "bifrost/net/shared_buffer.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::net {

struct SwitchConfig {
  std::string name = "switch";
  uint32_t ports = 0;
  Time processing_latency = Time::zero();
  SharedBufferConfig buffer{};
  SchedulingConfig scheduling{};  // every port; change one with set_scheduling
  std::array<RedEcnConfig, kPriorities> ecn{};
  DscpMap dscp{};
  uint64_t seed = 0;  // ECMP hash seed; also seeds the ECN marking stream
};

struct SwitchCounters {
  uint64_t received_packets = 0;
  uint64_t received_bytes = 0;
  uint64_t forwarded_packets = 0;  // admitted to an egress queue
  std::array<uint64_t, kPriorities> ecn_marked{};
  DropCounters drops;
};

// Per egress port; drops without an egress port (no route) are only in SwitchCounters.
struct SwitchPortCounters {
  std::array<uint64_t, kPriorities> ecn_marked{};
  DropCounters drops;
};

class Switch final : public FrameReceiver, private EgressListener {
 public:
  // Throws Error for zero ports or a bad buffer / ECN configuration.
  Switch(world::Scheduler& scheduler, SwitchConfig config);
  Switch(const Switch&) = delete;
  Switch& operator=(const Switch&) = delete;

  const std::string& name() const { return config_.name; }
  uint32_t port_count() const { return config_.ports; }
  // The attach point of port i for a Link. Throws Error for a bad index.
  LinkEnd port(uint32_t i);
  EgressPort& egress(uint32_t i);
  RoutingTable& routes() { return routes_; }
  uint64_t ecmp_seed() const { return config_.seed; }
  Time processing_latency() const { return config_.processing_latency; }

  // Installs the downstream half of flow control on ingress port i and applies its buffer
  // limits. Throws Error if the buffer cannot hold the headroom it asks for.
  void set_ingress_flow_control(uint32_t port, std::unique_ptr<IngressFlowControl> control);
  IngressFlowControl* ingress_flow_control(uint32_t port) const;

  const SharedBuffer& buffer() const { return buffer_; }
  const SwitchCounters& counters() const { return counters_; }
  const SwitchPortCounters& port_counters(uint32_t port) const;

  void receive_data(uint32_t port, world::PacketPtr packet, uint32_t frame_bytes) override;
  void receive_control(uint32_t port, const ControlFrame& frame) override;

 private:
  void on_dequeue(uint32_t port, int priority, uint32_t frame_bytes, uint32_t tag) override;
  void check_port(uint32_t i) const;

  world::Scheduler& scheduler_;
  SwitchConfig config_;
  RoutingTable routes_;
  SharedBuffer buffer_;
  std::array<RedMarker, kPriorities> markers_;
  RandomStream ecn_rng_;
  std::deque<EgressPort> egress_;
  IngressControls ingress_control_;
  std::vector<SwitchPortCounters> port_counters_;
  SwitchCounters counters_;
};

}  // namespace bifrost::net
