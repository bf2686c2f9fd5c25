#pragma once
// Where a link attaches to a node: the node's receiving side for one port, and the egress port
// that feeds the link in the other direction.
#include <cstdint>

#include "bifrost/core/time.h"
#include "bifrost/net/frame.h"
#include "bifrost/world/packet.h"

namespace bifrost::net {

class EgressPort;

// A node's receiving side. Switches, hosts and (later) relay nodes implement it; `port` says
// which of the node's ports the frame came in on.
class FrameReceiver {
 public:
  virtual ~FrameReceiver() = default;
  // `frame_bytes` is data_frame_bytes(*packet), computed once by the first sender.
  virtual void receive_data(uint32_t port, world::PacketPtr packet, uint32_t frame_bytes) = 0;
  virtual void receive_control(uint32_t port, const ControlFrame& frame) = 0;
};

struct LinkEnd {
  FrameReceiver* receiver = nullptr;
  uint32_t port = 0;
  EgressPort* egress = nullptr;
  // Delay between the last bit of a data frame arriving and the frame entering the node's
  // buffer (a switch's processing latency). Control frames act on arrival.
  Time ingress_latency = Time::zero();
};

}  // namespace bifrost::net
