#include "bifrost/net/flowctl/pfc_ingress.h"

#include "bifrost/core/error.h"
#include "bifrost/net/channel.h"
#include "bifrost/net/egress_port.h"

namespace bifrost::net {
namespace {

uint8_t bit(int priority) {
  return static_cast<uint8_t>(1u << priority);
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
  // A refresh must reach the upstream before its pause runs out.
  const Time propagation = reverse.channel()->propagation();
  if (refresh_period_ <= Time::zero() || refresh_period_ + propagation >= pause) {
    throw Error(
        "PFC refresh period plus the link's propagation delay ({} ps) must be shorter than the "
        "pause it refreshes ({} ps at this link rate), got a refresh period of {} ps; use more "
        "pause quanta or a shorter refresh period",
        propagation.picoseconds(), pause.picoseconds(), refresh_period_.picoseconds());
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
