#include "bifrost/net/swing_relay.h"

#include <utility>

#include "bifrost/core/error.h"
#include "bifrost/net/channel.h"

namespace bifrost::net {
namespace {

const SwingRelayConfig& checked(const SwingRelayConfig& config) {
  if (config.processing_latency < Time::zero()) {
    throw Error("relay '{}': processing latency must not be negative", config.name);
  }
  return config;
}

}  // namespace

SwingRelay::SwingRelay(world::Scheduler& scheduler, SwingRelayConfig config)
    : config_(std::move(config)), buffer_(checked(config_).buffer, 2) {
  for (uint32_t i = 0; i < 2; ++i) {
    egress_.emplace_back(scheduler, i, config_.scheduling);
    egress_.back().set_listener(this);
  }
}

void SwingRelay::check_port(uint32_t i) {
  if (i > kRemotePort) throw Error("a SWING relay has ports 0 (local) and 1 (remote), not {}", i);
}

LinkEnd SwingRelay::port(uint32_t i) {
  check_port(i);
  return LinkEnd{this, i, &egress_[i], config_.processing_latency};
}

EgressPort& SwingRelay::egress(uint32_t i) {
  check_port(i);
  return egress_[i];
}

void SwingRelay::set_ingress_flow_control(uint32_t port,
                                          std::unique_ptr<IngressFlowControl> control) {
  check_port(port);
  ingress_control_.install(buffer_, port, std::move(control));
}

IngressFlowControl* SwingRelay::ingress_flow_control(uint32_t port) const {
  check_port(port);
  return ingress_control_.at(port);
}

void SwingRelay::set_control_listener(uint32_t port, ControlListener* listener) {
  check_port(port);
  listeners_[port] = listener;
}

void SwingRelay::receive_data(uint32_t in_port, world::PacketPtr packet, uint32_t frame_bytes) {
  ++counters_.received_packets;
  counters_.received_bytes += frame_bytes;
  const int priority = config_.dscp.priority(packet->dscp);
  const uint32_t out_port = other(in_port);
  EgressPort& out = egress_[out_port];
  if (out.channel() == nullptr || !out.channel()->up()) {
    counters_.drops.add(DropReason::kLinkDown, frame_bytes);
    return;
  }
  const Admission admission = buffer_.admit(in_port, out_port, priority, frame_bytes);
  if (!admission.admitted) {
    counters_.drops.add(admission.reason, frame_bytes);
    return;
  }
  ++counters_.forwarded_packets;
  // Flow control hears of the admission before an idle port can already release the frame.
  ingress_control_.admitted(buffer_, in_port, priority);
  // The ingress port is implied by the egress; the tag keeps the buffer pool.
  out.enqueue(priority,
              QueuedPacket{std::move(packet), frame_bytes, static_cast<uint32_t>(admission.pool)});
}

void SwingRelay::on_dequeue(uint32_t out_port, int priority, uint32_t frame_bytes, uint32_t tag) {
  const uint32_t in_port = other(out_port);
  buffer_.release(in_port, out_port, priority, frame_bytes, static_cast<BufferPool>(tag));
  ingress_control_.released(buffer_, in_port, priority);
}

void SwingRelay::receive_control(uint32_t port, const ControlFrame& frame) {
  egress_[port].receive_control(frame);
  if (listeners_[port] != nullptr) listeners_[port]->on_control_arrived(frame);
}

}  // namespace bifrost::net
