#include "bifrost/net/link.h"

#include <cmath>

#include "bifrost/core/error.h"
#include "bifrost/net/egress_port.h"

namespace bifrost::net {

Time fiber_delay(double km) {
  if (!std::isfinite(km) || km < 0) {
    throw Error("fibre length must be a finite, non-negative number of km, got {}", km);
  }
  return Time::from_seconds(km * 5e-6);
}

namespace {

LinkEnd checked(LinkEnd end, const char* side) {
  if (end.receiver == nullptr || end.egress == nullptr) {
    throw Error("link end {} needs a receiving node and an egress port", side);
  }
  return end;
}

}  // namespace

Link::Link(world::Scheduler& scheduler, const LinkConfig& config, LinkEnd a, LinkEnd b)
    : scheduler_(scheduler),
      a_to_b_(scheduler, config.rate, config.propagation, config.frame_overhead_bytes,
              checked(b, "b"), RandomStream(config.seed, "a_to_b"), config.loss_rate),
      b_to_a_(scheduler, config.rate, config.propagation, config.frame_overhead_bytes,
              checked(a, "a"), RandomStream(config.seed, "b_to_a"), config.loss_rate) {
  if (a.egress == b.egress) throw Error("a link needs two different ends");
  if (a.egress->channel() != nullptr || b.egress->channel() != nullptr) {
    throw Error("an egress port can feed only one link; this one already has a link");
  }
  // Before attaching, so that a bad jitter leaves both ports free.
  a_to_b_.set_jitter(config.jitter, RandomStream(config.seed, "a_to_b_jitter"));
  b_to_a_.set_jitter(config.jitter, RandomStream(config.seed, "b_to_a_jitter"));
  a.egress->attach(a_to_b_);
  b.egress->attach(b_to_a_);
}

void Link::fail() {
  a_to_b_.set_up(false);
  b_to_a_.set_up(false);
}

void Link::recover() {
  a_to_b_.set_up(true);
  b_to_a_.set_up(true);
}

void Link::fail_at(Time when) {
  scheduler_.at(when, [this] { fail(); });
}

void Link::recover_at(Time when) {
  scheduler_.at(when, [this] { recover(); });
}

}  // namespace bifrost::net
