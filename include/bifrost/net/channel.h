#pragma once
// One direction of a link: a wire of fixed rate and propagation delay from an egress port to a
// node. Transmitting a frame schedules exactly one event, its arrival (serialization +
// propagation + the receiver's ingress latency later); the egress port keeps its own clock of
// when the wire is free. Frames can be lost at random, by script, because the link is down
// when they are sent, or because it fails while they are on the wire.
#include <cstdint>
#include <optional>
#include <vector>

#include "bifrost/core/rate.h"
#include "bifrost/core/rng.h"
#include "bifrost/net/drop_reason.h"
#include "bifrost/net/frame.h"
#include "bifrost/net/link_end.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::net {

struct ChannelCounters {
  uint64_t data_frames_sent = 0;  // every data frame handed to the wire, lost or not
  uint64_t data_bytes_sent = 0;   // frame bytes, without the per-frame overhead
  uint64_t data_frames_delivered = 0;
  uint64_t data_bytes_delivered = 0;
  uint64_t control_frames_sent = 0;
  uint64_t control_frames_delivered = 0;
  uint64_t control_frames_lost = 0;  // sent while down or on the wire at a failure
  // Data frames lost here: kLinkDown, kLostInFlight, kRandomLoss, kScripted.
  DropCounters drops;
};

class Channel {
 public:
  Channel(world::Scheduler& scheduler, Rate rate, Time propagation, uint32_t overhead_bytes,
          LinkEnd to, RandomStream rng, double loss_rate);
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // Puts a frame on the wire now and returns how long it occupies the wire.
  Time transmit_data(world::PacketPtr packet, uint32_t frame_bytes);
  Time transmit_control(const ControlFrame& frame);

  // Wire time of a frame: serialization_time(frame + overhead bytes, rate), rounded up to ps.
  // Most frames on a channel have one size, so the last answer is kept: the exact computation
  // needs a 128-bit division.
  Time wire_time(uint32_t frame_bytes) const {
    if (frame_bytes != cached_frame_bytes_) {
      cached_frame_bytes_ = frame_bytes;
      cached_wire_time_ = serialization_time(Bytes(uint64_t{frame_bytes} + overhead_bytes_), rate_);
    }
    return cached_wire_time_;
  }

  Rate rate() const { return rate_; }
  Time propagation() const { return propagation_; }
  uint32_t overhead_bytes() const { return overhead_bytes_; }
  const LinkEnd& destination() const { return to_; }
  bool up() const { return up_; }

  // Probability that a data frame is lost on this channel; throws Error outside [0, 1].
  void set_loss_rate(double probability);
  // Extra propagation delay per frame, uniform in [0, max_extra] from `rng`, FIFO kept; throws
  // Error for a negative value.
  void set_jitter(Time max_extra, RandomStream rng);
  Time jitter() const { return jitter_; }
  // Drops the n-th data frame sent on this channel (1 = the first one ever sent).
  void drop_nth_data_frame(uint64_t n);
  // Drops every n-th data frame sent on this channel from now on: the n-th, 2n-th, ... counted
  // from the first one ever sent (0: none). Counted as kScripted drops.
  void drop_every_nth_data_frame(uint64_t n) { drop_every_ = n; }
  // Drops the next `times` data frames with this PSN (and, if given, this destination QP).
  void drop_psn(uint32_t psn, std::optional<uint32_t> dest_qp = std::nullopt, uint32_t times = 1);

  const ChannelCounters& counters() const { return counters_; }

 private:
  friend class Link;
  struct ScriptedDrop {
    uint64_t nth = 0;  // nonzero: match by position
    uint32_t psn = 0;
    std::optional<uint32_t> dest_qp;
    uint32_t remaining = 1;
  };

  void set_up(bool up);
  bool take_scripted_drop(const world::Packet& packet);
  void arrive_data(world::PacketPtr packet, uint32_t frame_bytes, uint32_t generation);
  void arrive_control(const ControlFrame& frame, uint32_t generation);
  // When a frame that finishes serialization at `serialized` leaves the fibre.
  Time fiber_exit(Time serialized);

  world::Scheduler& scheduler_;
  Rate rate_;
  Time propagation_;
  uint32_t overhead_bytes_;
  LinkEnd to_;
  RandomStream rng_;
  double loss_rate_ = 0;
  uint64_t drop_every_ = 0;
  Time jitter_ = Time::zero();
  RandomStream jitter_rng_{0};
  Time last_exit_ = Time::zero();
  bool up_ = true;
  // Bumped on every failure: a frame that arrives with an older generation was on the wire.
  uint32_t generation_ = 0;
  std::vector<ScriptedDrop> scripted_;
  ChannelCounters counters_;
  mutable uint32_t cached_frame_bytes_ = 0;
  mutable Time cached_wire_time_;
};

}  // namespace bifrost::net
