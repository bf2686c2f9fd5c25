#pragma once
// The two halves of hop-by-hop flow control. The downstream half (IngressFlowControl) lives at a
// node's ingress port: it sees bytes from that port enter and leave the node's buffer per
// priority, decides, and sends control frames upstream on the reverse direction of the same
// link. The upstream half (EgressGate) lives in the egress port at the other end of the link
// (a switch port or a host NIC): it obeys those frames and wakes the port when a priority may
// send again. Nodes only know these interfaces; PFC, and later DCI, CBFC or a relay's own
// policy, are classes behind them (docs/net.md, "Flow control").
#include <cstdint>

#include "bifrost/core/bytes.h"
#include "bifrost/net/frame.h"

namespace bifrost::net {

class EgressPort;

// A buffer threshold: a fixed number of bytes, or alpha x the free shared bytes (dynamic).
class Threshold {
 public:
  static Threshold fixed(Bytes bytes);
  // Throws Error unless alpha is finite and > 0.
  static Threshold dynamic(double alpha);

  Bytes resolve(Bytes shared_free) const {
    if (!dynamic_) return bytes_;
    return Bytes(static_cast<uint64_t>(alpha_ * static_cast<double>(shared_free.count())));
  }
  bool is_dynamic() const { return dynamic_; }

 private:
  bool dynamic_ = false;
  Bytes bytes_;
  double alpha_ = 0;
};

// How the node's buffer treats frames of one priority from one ingress port. A lossless
// priority may fill the buffer up to `xoff`; beyond it, frames go to this port's `headroom` for
// the priority, and a frame that does not fit there either is dropped (kHeadroomExceeded).
struct IngressLimits {
  bool lossless = false;
  Threshold xoff = Threshold::fixed(Bytes(0));
  Bytes headroom{};
};

// Frame bytes from one (ingress port, priority) in the buffer now.
struct IngressUsage {
  Bytes buffered{};  // outside headroom
  Bytes headroom{};  // in this port's headroom for the priority
  // The xoff threshold now: dynamic thresholds move, and it is capped at buffered + free shared
  // bytes, because a frame that finds the shared pool full goes to headroom just the same.
  Bytes xoff{};
  Bytes total() const { return buffered + headroom; }
};

// The buffer a downstream half watches; a switch's MMU, or a relay node's own buffer.
class IngressBuffer {
 public:
  virtual ~IngressBuffer() = default;
  virtual IngressUsage ingress_usage(uint32_t port, int priority) const = 0;
};

class IngressFlowControl {
 public:
  virtual ~IngressFlowControl() = default;

  // Asked once per priority when the node installs this object.
  virtual IngressLimits limits(int priority) const = 0;
  // Priorities (bit mask) whose arrivals and departures this object wants to hear about; asked
  // once at installation, so that other traffic costs nothing.
  virtual uint8_t watched_priorities() const = 0;
  // A frame from this port entered the buffer / left it (transmitted). `usage` is after the
  // change.
  virtual void on_admitted(int priority, const IngressUsage& usage) = 0;
  virtual void on_released(int priority, const IngressUsage& usage) = 0;

  // Called by the node on installation.
  void attach(const IngressBuffer& buffer, uint32_t port) {
    buffer_ = &buffer;
    port_ = port;
  }

 protected:
  IngressUsage usage(int priority) const { return buffer_->ingress_usage(port_, priority); }

 private:
  const IngressBuffer* buffer_ = nullptr;
  uint32_t port_ = 0;
};

class EgressGate {
 public:
  virtual ~EgressGate() = default;

  // Priorities that may not send at all now (bit p). Kept in the base class so that the egress
  // scheduler reads it without a virtual call.
  uint8_t closed_mask() const { return closed_mask_; }
  // For gates whose answer depends on the frame (credits): asked per eligible priority when
  // checks_frame_size() is true.
  bool checks_frame_size() const { return checks_frame_size_; }
  virtual bool may_send(int /*priority*/, uint32_t /*frame_bytes*/) const { return true; }
  // A data frame of this priority started transmission.
  virtual void on_transmit(int /*priority*/, uint32_t /*frame_bytes*/) {}
  // A control frame arrived from the downstream end of the link.
  virtual void on_control(const ControlFrame& frame) = 0;

  // Called by the egress port on installation.
  void bind(EgressPort& port) { port_ = &port; }

 protected:
  explicit EgressGate(bool checks_frame_size = false) : checks_frame_size_(checks_frame_size) {}
  void close(int priority) { closed_mask_ |= static_cast<uint8_t>(1u << priority); }
  // Opens a priority and lets the port send if it can.
  void open(int priority);
  EgressPort* port() const { return port_; }

 private:
  EgressPort* port_ = nullptr;
  uint8_t closed_mask_ = 0;
  bool checks_frame_size_;
};

}  // namespace bifrost::net
