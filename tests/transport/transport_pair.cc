#include <gtest/gtest.h>

#include "transport_pair.h"

#include <array>
#include <cstring>

namespace bifrost::transport::testing {

TransportPairConfig random_lossy_config(RandomStream& r, uint64_t seed, Reliability reliability,
                                        double max_loss) {
  TransportPairConfig c;
  c.transport.reliability = reliability;
  c.wire.delay = Time::us(r.uniform_int(1, 10));
  c.wire.loss = r.uniform() * max_loss;
  c.wire.duplicate = r.uniform() * 0.02;
  c.wire.reorder = r.uniform() * 0.05;
  c.wire.seed = seed;
  c.transport.unit_size = r.bernoulli(0.5) ? 4096 : 1024;
  c.transport.mtu = c.transport.unit_size == 1024 ? 1024 : 4096;
  c.endpoint.seed = seed;
  return c;
}

TransportPairConfig lossless_paper_hint() {
  TransportPairConfig c;
  c.wire.delay = Time::us(2);
  c.transport.hint_when_idle = false;
  return c;
}

bool is_uc_send(const world::Packet& p) {
  return p.roce.bth.opcode == wire::Opcode::kUcSendOnly;
}

TransportPairConfig control_test_config(Reliability reliability) {
  TransportPairConfig c;
  c.wire.delay = Time::us(2);
  c.transport.reliability = reliability;
  c.transport.reconnect_interval = Time::us(200);
  return c;
}

std::string mode_name(const ::testing::TestParamInfo<Reliability>& info) {
  return info.param == Reliability::hardware_rc ? "Rc" : "Uc";
}

TransportPair::TransportPair(const TransportPairConfig& config) : pair_(config) {
  for (int i = 0; i < 2; ++i) {
    sim::TransportPair::Side& s = pair_.side(i);
    sides_[i].connection = s.connection;
    sides_[i].app = s.app.get();
    sides_[i].app_region = s.app_region;
    s.connection->set_delivery_handler([this, i](const Delivery& d) { on_delivery(i, d); });
  }
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
  for (int i = 0; i < 2; ++i) {
    const Side* s = &sides_[i];
    const Side& peer = sides_[1 - i];
    for (size_t m = 0; m < s->sent.size(); ++m) {
      if (!s->sent[m].completed) return false;
      if (peer.received_count.size() <= m || peer.received_count[m] == 0) return false;
    }
  }
  return true;
}

bool TransportPair::run_until_done(Time limit) {
  const Time end = pair_.kernel().now() + limit;
  while (!done() && pair_.kernel().now() < end) {
    pair_.kernel().run_until(std::min(end, pair_.kernel().now() + Time::us(100)));
  }
  return done();
}

::testing::AssertionResult TransportPair::all_delivered_once() const {
  for (int from = 0; from < 2; ++from) {
    const Side& s = sides_[from];
    const Side& peer = sides_[1 - from];
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
