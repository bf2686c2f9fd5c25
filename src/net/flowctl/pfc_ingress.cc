#include "bifrost/net/flowctl/pfc_ingress.h"

#include "bifrost/core/error.h"
#include "bifrost/net/channel.h"
#include "bifrost/net/egress_port.h"

namespace bifrost::net {
namespace {

uint8_t bit(int priority) {
  return static_cast<uint8_t>(1u << priority);
}

// How much later than its send time plus the fixed delays a pause can reach the upstream: the
// wait behind the largest frame in transmission at this end, and the fibre's jitter.
Time arrival_spread(uint32_t max_reverse_frame_bytes, const Channel& link) {
  return serialization_time(Bytes(uint64_t{max_reverse_frame_bytes} + link.overhead_bytes()),
                            link.rate()) +
         link.jitter();
}

}  // namespace

PfcIngress::PfcIngress(world::Scheduler& scheduler, const PfcConfig& config, EgressPort& reverse)
    : scheduler_(scheduler), config_(config), reverse_(reverse) {
  if (config.pause_quanta == 0) {
    throw Error("PFC pause_quanta must be positive (zero means resume, not pause)");
  }
  if (reverse.channel() == nullptr) {
    throw Error("PFC: egress port {} has no link yet; create the Link before installing PFC",
                reverse.id());
  }
  const Time pause = pause_duration(config.pause_quanta, reverse.channel()->rate());
  refresh_period_ = config.refresh_period == Time::zero() ? pause / 2 : config.refresh_period;
  // Each refresh must reach the upstream before the previous pause runs out. Refreshes leave one
  // refresh period apart and cross the same link, so the propagation cancels out: however long
  // the link, consecutive pauses arrive a refresh period apart, plus at most the spread below
  // (a pause may wait for the frame this port is sending, the one before it may not; the fibre
  // may delay one by its jitter and not the other).
  const Channel& link = *reverse.channel();
  const Time spread = arrival_spread(config.max_reverse_frame_bytes, link);
  if (refresh_period_ <= Time::zero() || refresh_period_ + spread >= pause) {
    throw Error(
        "PFC refresh period ({} ps) plus the spread of pause arrivals ({} ps: a frame in "
        "transmission and the link's jitter) must be shorter than the pause it refreshes ({} ps "
        "at this link rate); use more pause quanta or a shorter refresh period",
        refresh_period_.picoseconds(), spread.picoseconds(), pause.picoseconds());
  }
}

PfcIngress::~PfcIngress() {
  for (world::TimerId& id : refresh_timer_) scheduler_.cancel(id);
}

IngressLimits PfcIngress::limits(int priority) const {
  if (!lossless(priority)) return IngressLimits{};
  return IngressLimits{.lossless = true, .xoff = config_.xoff, .headroom = config_.headroom};
}

// Resuming also needs empty headroom, so that the next episode has all of it (the headroom
// bound assumes that); with headroom freed first this costs nothing in the usual case.
bool PfcIngress::at_or_below_xon(const IngressUsage& usage) const {
  const Bytes xon = config_.xon ? *config_.xon : usage.xoff - config_.xon_offset;
  return usage.total() <= xon && usage.headroom == Bytes(0);
}

void PfcIngress::on_admitted(int priority, const IngressUsage& usage) {
  if (!lossless(priority) || pausing_[priority]) return;
  if (usage.total() >= usage.xoff) start_pause(priority);
}

void PfcIngress::on_released(int priority, const IngressUsage& usage) {
  if (pausing_[priority] && at_or_below_xon(usage)) resume(priority);
}

void PfcIngress::start_pause(int priority) {
  pausing_[priority] = true;
  ++counters_.pause_sent[priority];
  reverse_.send_control(make_pause(bit(priority), config_.pause_quanta));
  arm_refresh(priority);
}

void PfcIngress::arm_refresh(int priority) {
  refresh_timer_[priority] = scheduler_.after(refresh_period_, [this, priority] {
    refresh_timer_[priority] = {};
    refresh(priority);
  });
}

// Re-sends the pause before the upstream's timer runs out, unless the buffer has drained (a
// dynamic xoff can move xon without any frame leaving this port).
void PfcIngress::refresh(int priority) {
  if (at_or_below_xon(usage(priority))) {
    resume(priority);
    return;
  }
  ++counters_.refresh_sent[priority];
  reverse_.send_control(make_pause(bit(priority), config_.pause_quanta));
  arm_refresh(priority);
}

void PfcIngress::resume(int priority) {
  pausing_[priority] = false;
  scheduler_.cancel(refresh_timer_[priority]);
  refresh_timer_[priority] = {};
  ++counters_.resume_sent[priority];
  reverse_.send_control(make_pause(bit(priority), 0));
}

}  // namespace bifrost::net
