#include "bifrost/net/switch.h"

#include <utility>

#include "bifrost/core/error.h"
#include "bifrost/net/channel.h"

namespace bifrost::net {
namespace {

std::array<RedMarker, kPriorities> make_markers(const std::array<RedEcnConfig, kPriorities>& c) {
  return {RedMarker(c[0]), RedMarker(c[1]), RedMarker(c[2]), RedMarker(c[3]),
          RedMarker(c[4]), RedMarker(c[5]), RedMarker(c[6]), RedMarker(c[7])};
}

uint32_t checked_ports(const SwitchConfig& config) {
  if (config.ports == 0) throw Error("switch '{}' needs at least one port", config.name);
  if (config.ports > (1u << 24)) {
    throw Error("switch '{}' has {} ports; at most 2^24 are supported", config.name, config.ports);
  }
  if (config.processing_latency < Time::zero()) {
    throw Error("switch '{}': processing latency must not be negative", config.name);
  }
  return config.ports;
}

// A switch's queue tag: the ingress port and the buffer pool the frame sits in.
uint32_t make_tag(uint32_t in_port, BufferPool pool) {
  return (in_port << 8) | static_cast<uint32_t>(pool);
}

}  // namespace

Switch::Switch(world::Scheduler& scheduler, SwitchConfig config)
    : scheduler_(scheduler),
      config_(std::move(config)),
      buffer_(config_.buffer, checked_ports(config_)),
      markers_(make_markers(config_.ecn)),
      ecn_rng_(config_.seed, "ecn"),
      ingress_control_(config_.ports),
      port_counters_(config_.ports) {
  for (uint32_t i = 0; i < config_.ports; ++i) {
    egress_.emplace_back(scheduler_, i, config_.scheduling);
    egress_.back().set_listener(this);
  }
}

void Switch::check_port(uint32_t i) const {
  if (i >= config_.ports) {
    throw Error("switch '{}' has ports 0..{}, not {}", config_.name, config_.ports - 1, i);
  }
}

LinkEnd Switch::port(uint32_t i) {
  check_port(i);
  return LinkEnd{this, i, &egress_[i], config_.processing_latency};
}

EgressPort& Switch::egress(uint32_t i) {
  check_port(i);
  return egress_[i];
}

const SwitchPortCounters& Switch::port_counters(uint32_t port) const {
  check_port(port);
  return port_counters_[port];
}

void Switch::set_ingress_flow_control(uint32_t port, std::unique_ptr<IngressFlowControl> control) {
  check_port(port);
  ingress_control_.install(buffer_, port, std::move(control));
}

IngressFlowControl* Switch::ingress_flow_control(uint32_t port) const {
  check_port(port);
  return ingress_control_.at(port);
}

void Switch::receive_data(uint32_t in_port, world::PacketPtr packet, uint32_t frame_bytes) {
  ++counters_.received_packets;
  counters_.received_bytes += frame_bytes;
  const int priority = config_.dscp.priority(packet->dscp);
  const uint32_t out_port = routes_.lookup(*packet, config_.seed);
  if (out_port >= config_.ports) {  // kNoRoute, or a route to a port this switch lacks
    counters_.drops.add(DropReason::kNoRoute, frame_bytes);
    return;
  }
  EgressPort& out = egress_[out_port];
  SwitchPortCounters& port_counters = port_counters_[out_port];
  if (out.channel() == nullptr || !out.channel()->up()) {
    counters_.drops.add(DropReason::kLinkDown, frame_bytes);
    port_counters.drops.add(DropReason::kLinkDown, frame_bytes);
    return;
  }
  const Admission admission = buffer_.admit(in_port, out_port, priority, frame_bytes);
  if (!admission.admitted) {
    counters_.drops.add(admission.reason, frame_bytes);
    port_counters.drops.add(admission.reason, frame_bytes);
    return;
  }
  const RedMarker& marker = markers_[priority];
  if (marker.enabled() && is_ect(packet->ecn) &&
      marker.should_mark(out.queue_bytes(priority), ecn_rng_)) {
    packet->ecn = kEcnCe;
    ++counters_.ecn_marked[priority];
    ++port_counters.ecn_marked[priority];
  }
  ++counters_.forwarded_packets;
  // Flow control hears of the admission before an idle port can already release the frame.
  ingress_control_.admitted(buffer_, in_port, priority);
  out.enqueue(priority,
              QueuedPacket{std::move(packet), frame_bytes, make_tag(in_port, admission.pool)});
}

void Switch::on_dequeue(uint32_t out_port, int priority, uint32_t frame_bytes, uint32_t tag) {
  const uint32_t in_port = tag >> 8;
  buffer_.release(in_port, out_port, priority, frame_bytes, static_cast<BufferPool>(tag & 0xFF));
  ingress_control_.released(buffer_, in_port, priority);
}

void Switch::receive_control(uint32_t port, const ControlFrame& frame) {
  egress_[port].receive_control(frame);
}

}  // namespace bifrost::net
