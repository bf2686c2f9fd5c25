#pragma once
// The packet half of the world boundary: where a NIC hands packets to the network and gets them
// back. In simulation the port is a host's link; in the real world it is a set of UDP sockets.
#include "bifrost/core/inplace_function.h"
#include "bifrost/world/packet.h"

namespace bifrost::world {

using ReceiveHandler = InplaceFunction<void(PacketPtr), 32>;

class PacketPort {
 public:
  virtual ~PacketPort() = default;

  // Takes ownership of `packet` and sends it from packet->src to packet->dst.
  virtual void send(PacketPtr packet) = 0;

  // Where arriving packets go. A port with no handler drops what arrives and counts it.
  void set_receive_handler(ReceiveHandler handler) { handler_ = std::move(handler); }
  uint64_t dropped_without_handler() const { return dropped_without_handler_; }

 protected:
  // Called by implementations for every packet that arrives.
  void deliver(PacketPtr packet) {
    if (handler_) {
      handler_(std::move(packet));
    } else {
      ++dropped_without_handler_;
    }
  }

 private:
  ReceiveHandler handler_;
  uint64_t dropped_without_handler_ = 0;
};

}  // namespace bifrost::world
