#pragma once
// A SWING relay (docs/net.md, "SWING"): a two-port store-and-forward node between a DCI switch
// and the long-haul link, a node of its own with its own buffer. Port 0 faces the DCI switch
// (kLocalPort), port 1 the long link (kRemotePort); what enters one port leaves the other. Each
// ingress port takes any IngressFlowControl, as a switch port does, and a listener per port
// hears the control frames that arrive there after the egress gate has obeyed them: SWING's
// pause relay uses it to pass the DCI switch's pauses on over the long link.
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "bifrost/net/dscp_map.h"
#include "bifrost/net/egress_port.h"
#include "bifrost/net/ingress_controls.h"
#include "bifrost/net/link_end.h"
#include "bifrost/net/shared_buffer.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::net {

struct SwingRelayConfig {
  std::string name = "relay";
  Time processing_latency = Time::zero();
  SharedBufferConfig buffer{};
  SchedulingConfig scheduling{};
  DscpMap dscp{};
};

struct SwingRelayCounters {
  uint64_t received_packets = 0;
  uint64_t received_bytes = 0;
  uint64_t forwarded_packets = 0;
  DropCounters drops;
};

// Hears control frames that arrived on one of the relay's ports.
class ControlListener {
 public:
  virtual ~ControlListener() = default;
  virtual void on_control_arrived(const ControlFrame& frame) = 0;
};

class SwingRelay final : public FrameReceiver, private EgressListener {
 public:
  static constexpr uint32_t kLocalPort = 0;
  static constexpr uint32_t kRemotePort = 1;
  static constexpr uint32_t other(uint32_t port) { return 1 - port; }

  // Throws Error for a negative latency or a bad buffer configuration.
  SwingRelay(world::Scheduler& scheduler, SwingRelayConfig config);
  SwingRelay(const SwingRelay&) = delete;
  SwingRelay& operator=(const SwingRelay&) = delete;

  const std::string& name() const { return config_.name; }
  Time processing_latency() const { return config_.processing_latency; }
  // The attach point of port 0 or 1 for a Link. Throws Error for another index.
  LinkEnd port(uint32_t i);
  EgressPort& egress(uint32_t i);

  // Throws Error if the buffer cannot hold the headroom `control` asks for.
  void set_ingress_flow_control(uint32_t port, std::unique_ptr<IngressFlowControl> control);
  IngressFlowControl* ingress_flow_control(uint32_t port) const;
  // `listener` (not owned; nullptr: none) hears every control frame arriving on `port`.
  void set_control_listener(uint32_t port, ControlListener* listener);

  const SharedBuffer& buffer() const { return buffer_; }
  const SwingRelayCounters& counters() const { return counters_; }

  void receive_data(uint32_t port, world::PacketPtr packet, uint32_t frame_bytes) override;
  void receive_control(uint32_t port, const ControlFrame& frame) override;

 private:
  void on_dequeue(uint32_t port, int priority, uint32_t frame_bytes, uint32_t tag) override;
  static void check_port(uint32_t i);

  SwingRelayConfig config_;
  SharedBuffer buffer_;
  std::deque<EgressPort> egress_;
  IngressControls ingress_control_{2};
  std::array<ControlListener*, 2> listeners_{};
  SwingRelayCounters counters_;
};

}  // namespace bifrost::net
