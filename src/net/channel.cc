#include "bifrost/net/channel.h"

#include <algorithm>

#include "bifrost/core/error.h"

namespace bifrost::net {

Channel::Channel(world::Scheduler& scheduler, Rate rate, Time propagation, uint32_t overhead_bytes,
                 LinkEnd to, RandomStream rng, double loss_rate)
    : scheduler_(scheduler),
      rate_(rate),
      propagation_(propagation),
      overhead_bytes_(overhead_bytes),
      to_(to),
      rng_(rng) {
  if (rate.bits_per_second() <= 0) {
    throw Error("link rate must be positive, got {} bit/s", rate.bits_per_second());
  }
  if (propagation < Time::zero()) {
    throw Error("link propagation delay must not be negative, got {} ps",
                propagation.picoseconds());
  }
  if (to.receiver == nullptr) throw Error("a link end needs a receiving node");
  set_loss_rate(loss_rate);
  cached_wire_time_ = serialization_time(Bytes(overhead_bytes), rate);  // for 0 frame bytes
}

void Channel::set_loss_rate(double probability) {
  if (!(probability >= 0.0 && probability <= 1.0)) {
    throw Error("link loss rate must be a probability in [0, 1], got {}", probability);
  }
  loss_rate_ = probability;
}

void Channel::set_jitter(Time max_extra, RandomStream rng) {
  if (max_extra < Time::zero()) {
    throw Error("link jitter must not be negative, got {} ps", max_extra.picoseconds());
  }
  jitter_ = max_extra;
  jitter_rng_ = rng;
}

Time Channel::fiber_exit(Time serialized) {
  if (jitter_ == Time::zero()) return serialized + propagation_;
  const auto extra = static_cast<int64_t>(
      jitter_rng_.uniform_int(0, static_cast<uint64_t>(jitter_.picoseconds())));
  last_exit_ = std::max(last_exit_, serialized + propagation_ + Time::ps(extra));
  return last_exit_;
}

void Channel::drop_nth_data_frame(uint64_t n) {
  if (n == 0) throw Error("drop_nth_data_frame counts from 1 (the first frame sent)");
  ScriptedDrop drop;
  drop.nth = n;
  scripted_.push_back(drop);
}

void Channel::drop_psn(uint32_t psn, std::optional<uint32_t> dest_qp, uint32_t times) {
  if (times == 0) throw Error("drop_psn needs a positive number of drops");
  ScriptedDrop drop;
  drop.psn = psn;
  drop.dest_qp = dest_qp;
  drop.remaining = times;
  scripted_.push_back(drop);
}

bool Channel::take_scripted_drop(const world::Packet& packet) {
  const uint64_t position = counters_.data_frames_sent;  // already counts this frame
  for (auto it = scripted_.begin(); it != scripted_.end(); ++it) {
    const bool match = it->nth != 0 ? it->nth == position
                                    : it->psn == packet.roce.bth.psn &&
                                          (!it->dest_qp || *it->dest_qp == packet.roce.bth.dest_qp);
    if (!match) continue;
    if (--it->remaining == 0) scripted_.erase(it);
    return true;
  }
  return false;
}

Time Channel::transmit_data(world::PacketPtr packet, uint32_t frame_bytes) {
  const Time wire = wire_time(frame_bytes);
  ++counters_.data_frames_sent;
  counters_.data_bytes_sent += frame_bytes;
  constexpr DropReason kDelivered = DropReason::kCount;  // not a drop reason
  DropReason reason = kDelivered;
  if (!up_) {
    reason = DropReason::kLinkDown;
  } else if ((!scripted_.empty() && take_scripted_drop(*packet)) ||
             (drop_every_ != 0 && counters_.data_frames_sent % drop_every_ == 0)) {
    reason = DropReason::kScripted;
  } else if (loss_rate_ > 0 && rng_.bernoulli(loss_rate_)) {
    reason = DropReason::kRandomLoss;
  }
  if (reason != kDelivered) {
    counters_.drops.add(reason, frame_bytes);
    return wire;  // the frame still occupied the wire (or the port's transmit slot)
  }
  scheduler_.at(fiber_exit(scheduler_.now() + wire) + to_.ingress_latency,
                [this, p = std::move(packet), frame_bytes, g = generation_]() mutable {
                  arrive_data(std::move(p), frame_bytes, g);
                });
  return wire;
}

Time Channel::transmit_control(const ControlFrame& frame) {
  const Time wire = wire_time(frame.frame_bytes());
  ++counters_.control_frames_sent;
  if (!up_) {
    ++counters_.control_frames_lost;
    return wire;
  }
  scheduler_.at(fiber_exit(scheduler_.now() + wire),
                [this, frame, g = generation_] { arrive_control(frame, g); });
  return wire;
}

void Channel::arrive_data(world::PacketPtr packet, uint32_t frame_bytes, uint32_t generation) {
  if (generation != generation_) {
    counters_.drops.add(DropReason::kLostInFlight, frame_bytes);
    return;
  }
  ++counters_.data_frames_delivered;
  counters_.data_bytes_delivered += frame_bytes;
  to_.receiver->receive_data(to_.port, std::move(packet), frame_bytes);
}

void Channel::arrive_control(const ControlFrame& frame, uint32_t generation) {
  if (generation != generation_) {
    ++counters_.control_frames_lost;
    return;
  }
  ++counters_.control_frames_delivered;
  to_.receiver->receive_control(to_.port, frame);
}

void Channel::set_up(bool up) {
  if (up_ && !up) ++generation_;
  up_ = up;
}

}  // namespace bifrost::net
