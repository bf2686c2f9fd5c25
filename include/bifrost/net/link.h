#pragma once
// A full-duplex point-to-point link between two link ends (switch ports or host NICs): two
// channels of equal rate and delay, failing and recovering together.
#include <cstdint>

#include "bifrost/core/rate.h"
#include "bifrost/net/channel.h"
#include "bifrost/net/link_end.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::net {

struct LinkConfig {
  Rate rate = Rate::Gbps(100);
  Time propagation = Time::zero();
  uint32_t frame_overhead_bytes = kDefaultFrameOverheadBytes;
  double loss_rate = 0;  // per data frame, each direction
  uint64_t seed = 0;     // for the random loss and jitter streams
  // Fibre delay jitter: every frame's propagation gets an extra uniform [0, jitter] delay drawn
  // from the seed; frames never overtake each other (a fibre does not reorder).
  Time jitter = Time::zero();
};

// Propagation delay of `km` of fibre at 5 us/km, rounded to the picosecond; throws Error for a
// negative or non-finite length.
Time fiber_delay(double km);

class Link {
 public:
  // Attaches a.egress to the a-to-b channel and b.egress to the b-to-a channel. Throws Error on
  // a bad configuration or an egress port that already has a link.
  Link(world::Scheduler& scheduler, const LinkConfig& config, LinkEnd a, LinkEnd b);
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  Channel& a_to_b() { return a_to_b_; }
  Channel& b_to_a() { return b_to_a_; }
  const Channel& a_to_b() const { return a_to_b_; }
  const Channel& b_to_a() const { return b_to_a_; }
  Rate rate() const { return a_to_b_.rate(); }
  Time propagation() const { return a_to_b_.propagation(); }

  // Both directions go down: frames on the wire are lost, frames sent while down are dropped.
  void fail();
  void recover();
  void fail_at(Time when);
  void recover_at(Time when);
  bool up() const { return a_to_b_.up(); }

 private:
  world::Scheduler& scheduler_;
  Channel a_to_b_;
  Channel b_to_a_;
};

}  // namespace bifrost::net
