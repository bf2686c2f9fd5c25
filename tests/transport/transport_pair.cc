#include <fmt/format.h>
#include <gtest/gtest.h>

#include "transport_pair.h"

#include <array>
#include <cstring>

namespace bifrost::transport::testing {

TransportPair::TransportPair(const TransportPairConfig& config)
    : config_(config), wire_(std::make_unique<sim::LossyWire>(kernel_, config.wire)) {
  build(a_, 0);
  build(b_, 1);
  a_.endpoint->connect(*a_.connection, b_.endpoint->offer(*b_.connection));
  b_.endpoint->connect(*b_.connection, a_.endpoint->offer(*a_.connection));
}

void TransportPair::build(Side& side, int index) {
  rnic::DeviceConfig dc = config_.device;
  dc.name = fmt::format("nic{}", index);
  dc.gids = {world::Ipv4::of(10, 0, 0, static_cast<uint8_t>(index + 1))};
  side.device = std::make_unique<rnic::Device>(kernel_, dc);
  side.device->attach(wire_->end(index));
  EndpointConfig ec = config_.endpoint;
  ec.seed = config_.endpoint.seed + static_cast<uint64_t>(index);
  side.endpoint = std::make_unique<Endpoint>(*side.device, ec);
  side.connection = &side.endpoint->create_connection(config_.transport);
  side.app = std::make_unique<rnic::TokenMemory>(kAppBase, kAppBytes);
  side.app_region = &side.device->reg_mr(side.endpoint->pd(), kAppBase, kAppBytes,
                                         rnic::Access::local_write, side.app.get());
  side.connection->set_delivery_handler(
      [this, index](const Delivery& d) { on_delivery(index, d); });
}

uint64_t TransportPair::send(int from, uint64_t length) {
  Side& s = side(from);
  const auto index = static_cast<uint64_t>(s.sent.size());
  const uint64_t addr = s.next_addr;
  s.next_addr += (length + 4095) / 4096 * 4096 + 4096;
  // Pattern content unique to this message, its index in the first 8 bytes.
  s.app->fill(addr, length, static_cast<uint32_t>(1 + from * (1u << 22) + index));
  world::Payload tag;
  tag.length = 8;
  tag.bytes.resize(8);
  std::memcpy(tag.bytes.data(), &index, 8);
  s.app->write(addr, tag);
  s.sent.push_back(Side::Sent{.addr = addr, .length = length});
  return s.connection->send(MessageBuffer{.region = s.app_region, .addr = addr, .length = length},
                            [this, from, index](const SendCompletion& c) {
                              if (c.status == SendStatus::delivered) {
                                side(from).sent[index].completed = true;
                              }
                            });
}

void TransportPair::on_delivery(int to, const Delivery& d) {
  Side& receiver = side(to);
  const Side& sender = side(1 - to);
  uint64_t index = 0;
  if (d.length < 8) {
    ++receiver.unknown;
    return;
  }
  std::array<std::byte, 8> tag;
  d.memory->copy_out(d.addr, tag);
  std::memcpy(&index, tag.data(), 8);
  if (index >= sender.sent.size() || sender.sent[index].length != d.length) {
    ++receiver.unknown;
    return;
  }
  if (receiver.received_count.size() <= index) receiver.received_count.resize(index + 1, 0);
  ++receiver.received_count[index];
  if (!rnic::same_content(*d.memory, d.addr, *sender.app, sender.sent[index].addr, d.length)) {
    ++receiver.corrupt;
  }
}

bool TransportPair::done() const {
  for (const Side* s : {&a_, &b_}) {
    const Side& peer = s == &a_ ? b_ : a_;
    for (size_t i = 0; i < s->sent.size(); ++i) {
      if (!s->sent[i].completed) return false;
      if (peer.received_count.size() <= i || peer.received_count[i] == 0) return false;
    }
  }
  return true;
}

bool TransportPair::run_until_done(Time limit) {
  const Time end = kernel_.now() + limit;
  while (!done() && kernel_.now() < end) {
    kernel_.run_until(std::min(end, kernel_.now() + Time::us(100)));
  }
  return done();
}

::testing::AssertionResult TransportPair::all_delivered_once() const {
  for (int from = 0; from < 2; ++from) {
    const Side& s = from == 0 ? a_ : b_;
    const Side& peer = from == 0 ? b_ : a_;
    if (peer.corrupt != 0 || peer.unknown != 0) {
      return ::testing::AssertionFailure()
             << "side " << 1 - from << " got " << peer.corrupt << " corrupt and " << peer.unknown
             << " unknown deliveries";
    }
    for (size_t i = 0; i < s.sent.size(); ++i) {
      const uint32_t got = i < peer.received_count.size() ? peer.received_count[i] : 0;
      if (got != 1 || !s.sent[i].completed) {
        return ::testing::AssertionFailure()
               << "message " << i << " from side " << from << " (" << s.sent[i].length
               << " B) delivered " << got << " times, completed=" << s.sent[i].completed;
      }
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace bifrost::transport::testing
