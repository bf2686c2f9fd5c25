#pragma once
// A host: one NIC egress port on one link, seen from above as a world::PacketPort. send()
// queues the packet on the NIC at the priority its DSCP maps to; the NIC obeys pauses from
// the switch through its egress gate. Arriving packets go to the receive handler. The soft
// RNIC attaches here.
#include <cstdint>
#include <string>
#include <vector>

#include "bifrost/net/dscp_map.h"
#include "bifrost/net/egress_port.h"
#include "bifrost/net/link_end.h"
#include "bifrost/world/address.h"
#include "bifrost/world/packet_port.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::net {

struct HostConfig {
  std::string name = "host";
  // The NIC's source addresses (GID table); the first is the primary address.
  std::vector<world::Ipv4> addresses{};
  SchedulingConfig scheduling{};
  DscpMap dscp{};
};

// Told when a packet sent with send_tagged starts transmission, so a sender can keep the NIC
// fed without queueing a whole message at once.
class NicTransmitListener {
 public:
  virtual ~NicTransmitListener() = default;
  virtual void on_nic_transmit(uint32_t tag) = 0;
};

struct HostCounters {
  uint64_t sent_packets = 0;
  uint64_t received_packets = 0;
  uint64_t received_bytes = 0;  // frame bytes
};

class Host final : public world::PacketPort, public FrameReceiver, private EgressListener {
 public:
  // Throws Error without an address.
  Host(world::Scheduler& scheduler, HostConfig config);
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  const std::string& name() const { return config_.name; }
  world::Ipv4 address() const { return config_.addresses.front(); }
  const std::vector<world::Ipv4>& addresses() const { return config_.addresses; }

  void send(world::PacketPtr packet) override;
  // As send(); the listener hears `tag` (nonzero) when the packet starts transmission.
  void send_tagged(world::PacketPtr packet, uint32_t tag);
  void set_transmit_listener(NicTransmitListener* listener) { transmit_listener_ = listener; }
  NicTransmitListener* transmit_listener() const { return transmit_listener_; }

  LinkEnd port();
  EgressPort& nic() { return nic_; }
  const HostCounters& counters() const { return counters_; }

  void receive_data(uint32_t port, world::PacketPtr packet, uint32_t frame_bytes) override;
  void receive_control(uint32_t port, const ControlFrame& frame) override;

 private:
  void on_dequeue(uint32_t port, int priority, uint32_t frame_bytes, uint32_t tag) override;

  HostConfig config_;
  EgressPort nic_;
  NicTransmitListener* transmit_listener_ = nullptr;
  HostCounters counters_;
};

}  // namespace bifrost::net
