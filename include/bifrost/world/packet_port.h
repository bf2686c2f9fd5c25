#pragma once
// The packet half of the world boundary: where a NIC hands packets to the network and gets them
// back. In simulation the port is a host's link; in the real world it is a set of UDP sockets.
#include "bifrost/core/inplace_function.h"
#include "bifrost/core/time.h"
#include "bifrost/world/packet.h"

namespace bifrost::world {

using ReceiveHandler = InplaceFunction<void(PacketPtr), 32>;
// Told once per packet given to send(), when the port starts transmitting it (a simulated NIC
// port) or has handed it to the kernel (sockets). A NIC keeps only a few packets queued in the
// port and sends the next from here, so its own QP scheduler and rate limiters pick the order.
using TransmitHandler = InplaceFunction<void(), 16>;

class PacketPort {
 public:
  virtual ~PacketPort() = default;

  // Takes ownership of `packet` and sends it from packet->src to packet->dst.
  virtual void send(PacketPtr packet) = 0;

  // Where arriving packets go. A port with no handler drops what arrives and counts it.
  void set_receive_handler(ReceiveHandler handler) { handler_ = std::move(handler); }
  uint64_t dropped_without_handler() const { return dropped_without_handler_; }
  void set_transmit_handler(TransmitHandler handler) { transmit_handler_ = std::move(handler); }
  // When the packet the transmit handler is being told of left, if the port knows better than
  // "now": the sockets report after the kernel call returned, but the packet left when the call
  // began (on loopback the peer may have received it and answered by the time it returns).
  // Zero: now.
  Time departure() const { return departure_; }

 protected:
  // Called by implementations for every packet that arrives.
  void deliver(PacketPtr packet) {
    if (handler_) {
      handler_(std::move(packet));
    } else {
      ++dropped_without_handler_;
    }
  }
  // Called by implementations when a packet starts transmission.
  void transmitted(Time departure = Time::zero()) {
    departure_ = departure;
    if (transmit_handler_) transmit_handler_();
    departure_ = Time::zero();
  }

 private:
  ReceiveHandler handler_;
  TransmitHandler transmit_handler_;
  uint64_t dropped_without_handler_ = 0;
  Time departure_;
};

}  // namespace bifrost::world
