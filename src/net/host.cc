#include "bifrost/net/host.h"

#include <utility>

#include "bifrost/core/error.h"

namespace bifrost::net {
namespace {

const HostConfig& checked(const HostConfig& config) {
  if (config.addresses.empty()) {
    throw Error("host '{}' needs at least one IPv4 address", config.name);
  }
  return config;
}

}  // namespace

Host::Host(world::Scheduler& scheduler, HostConfig config)
    : config_(std::move(config)), nic_(scheduler, 0, checked(config_).scheduling) {
  nic_.set_listener(this);
}

void Host::send(world::PacketPtr packet) {
  send_tagged(std::move(packet), 0);
}

void Host::send_tagged(world::PacketPtr packet, uint32_t tag) {
  const int priority = config_.dscp.priority(packet->dscp);
  const uint32_t frame_bytes = data_frame_bytes(*packet);
  ++counters_.sent_packets;
  nic_.enqueue(priority, QueuedPacket{std::move(packet), frame_bytes, tag});
}

LinkEnd Host::port() {
  return LinkEnd{this, 0, &nic_, Time::zero()};
}

void Host::on_dequeue(uint32_t /*port*/, int /*priority*/, uint32_t /*frame_bytes*/, uint32_t tag) {
  if (tag != 0 && transmit_listener_ != nullptr) transmit_listener_->on_nic_transmit(tag);
  transmitted();
}

void Host::receive_data(uint32_t /*port*/, world::PacketPtr packet, uint32_t frame_bytes) {
  ++counters_.received_packets;
  counters_.received_bytes += frame_bytes;
  deliver(std::move(packet));
}

void Host::receive_control(uint32_t /*port*/, const ControlFrame& frame) {
  nic_.receive_control(frame);
}

}  // namespace bifrost::net
