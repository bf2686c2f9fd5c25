#include "bifrost/sim/lossy_wire.h"

#include <algorithm>

#include "bifrost/core/error.h"
#include "bifrost/wire/frame.h"

namespace bifrost::sim {
namespace {

void check_probability(double p, const char* what) {
  if (!(p >= 0 && p < 1)) throw Error("lossy wire: {} probability {} is outside [0, 1)", what, p);
}

world::PacketPtr copy_of(const world::Packet& packet) {
  world::PacketPtr copy = world::make_packet();
  copy->src = packet.src;
  copy->dst = packet.dst;
  copy->dscp = packet.dscp;
  copy->ecn = packet.ecn;
  copy->roce = packet.roce;
  copy->payload.length = packet.payload.length;
  copy->payload.token = packet.payload.token;
  const auto bytes = packet.payload.real_bytes();
  copy->payload.bytes.assign(bytes.begin(), bytes.end());
  return copy;
}

}  // namespace

LossyWire::LossyWire(world::Scheduler& scheduler, const LossyWireConfig& config)
    : scheduler_(scheduler), config_(config) {
  check_probability(config.loss, "loss");
  check_probability(config.duplicate, "duplicate");
  check_probability(config.reorder, "reorder");
  check_probability(config.ce_mark, "CE mark");
  if (config.rate <= Rate::bps(0)) throw Error("lossy wire: the rate must be positive");
  const RandomStream root(config.seed, "lossy_wire");
  for (int side = 0; side < 2; ++side) {
    ends_[side].wire = this;
    ends_[side].peer = &ends_[1 - side];
    ends_[side].random = root.fork(side == 0 ? "forward" : "backward");
    ends_[side].loss = config.loss;
  }
}

world::PacketPort& LossyWire::end(int side) {
  return ends_[side & 1];
}

void LossyWire::set_drop_filter(int side, DropFilter filter) {
  ends_[side & 1].filter = std::move(filter);
}

void LossyWire::set_loss(int side, double loss) {
  check_probability(loss, "loss");
  ends_[side & 1].loss = loss;
}

void LossyWire::pause(int side, Time until) {
  End& end = ends_[side & 1];
  end.paused_until = std::max(end.paused_until, until);
}

const LossyWireCounters& LossyWire::counters(int side) const {
  return ends_[side & 1].counters;
}

void LossyWire::End::send(world::PacketPtr packet) {
  world::Scheduler& scheduler = wire->scheduler_;
  const Time now = scheduler.now();
  const Time start = std::max({now, busy_until, paused_until});
  const auto bytes =
      wire::ethernet_frame_size(packet->roce, packet->payload.length) + wire->config_.framing_bytes;
  busy_until = start + serialization_time(Bytes(bytes), wire->config_.rate);
  ++counters.sent;
  if (start == now) {
    started();
  } else {
    scheduler.at(start, [this] { started(); });
  }
  wire->carry(*this, std::move(packet), busy_until + wire->config_.delay);
}

void LossyWire::carry(End& from, world::PacketPtr packet, Time arrival) {
  if ((from.filter && from.filter(*packet)) || from.random.bernoulli(from.loss)) {
    ++from.counters.lost;
    return;
  }
  End* to = from.peer;
  if (packet->ecn != 0 && config_.ce_mark > 0 && from.random.bernoulli(config_.ce_mark)) {
    packet->ecn = 3;
    ++from.counters.ce_marked;
  }
  if (from.random.bernoulli(config_.duplicate)) {
    ++from.counters.duplicated;
    world::PacketPtr copy = copy_of(*packet);
    scheduler_.at(arrival, [to, p = std::move(copy)]() mutable { to->arrive(std::move(p)); });
  }
  if (config_.reorder > 0 && from.random.bernoulli(config_.reorder)) {
    ++from.counters.reordered;
    const auto extra =
        from.random.uniform_int(1, std::max<int64_t>(1, config_.reorder_delay.picoseconds()));
    arrival = arrival + Time::ps(static_cast<int64_t>(extra));
  }
  scheduler_.at(arrival, [to, p = std::move(packet)]() mutable { to->arrive(std::move(p)); });
}

}  // namespace bifrost::sim
