#include "bifrost/net/flowctl/dci_ingress.h"

#include <algorithm>

#include "bifrost/core/error.h"
#include "bifrost/net/channel.h"
#include "bifrost/net/egress_port.h"

namespace bifrost::net {
namespace {

int64_t as_signed(Bytes b) {
  return static_cast<int64_t>(b.count());
}

}  // namespace

DciIngress::DciIngress(world::Scheduler& scheduler, const DciConfig& config,
                       const DciLinkParams& link, EgressPort& reverse)
    : scheduler_(scheduler), config_(config), link_(link), reverse_(reverse) {
  link_.max_frame_bytes = config.max_frame_bytes;
  if (config.priorities == 0) throw Error("DCI needs at least one priority to control");
  if (config.slot <= link.ingress_latency) {
    throw Error(
        "DCI time slot ({} ps) must be longer than the switch's internal delay ({} ps): the "
        "queue length L read at a slot must reflect the previous slot's arrivals",
        config.slot.picoseconds(), link.ingress_latency.picoseconds());
  }
  if (config.slot >= link.propagation) {
    throw Error(
        "DCI time slot ({} ps) must be shorter than the one-way delay ({} ps); on a short link "
        "use PFC",
        config.slot.picoseconds(), link.propagation.picoseconds());
  }
  full_pause_ = config.slot + (config.guard_full_pauses ? dci_pause_guard(link_) : Time::zero());
  if (pause_duration(0xFFFF, link.rate) < full_pause_) {
    throw Error(
        "DCI full pause (slot + guard, {} ps) does not fit the 16-bit pause field ({} ps at {} "
        "Gb/s)",
        full_pause_.picoseconds(), pause_duration(0xFFFF, link.rate).picoseconds(),
        link.rate.gbps());
  }
  delta_ = as_signed(dci_delta(link_));
  per_slot_ = as_signed(bytes_in(config.slot, link.rate));
  const Bytes need = dci_min_buffer(link_, config.slot, config.leak_every);
  const Bytes h = config.buffer.value_or(need);
  if (h < need) {
    throw Error(
        "DCI buffer H = {} bytes is below Delta + 2 x Rs x T{} = {} bytes (Delta {}, Rs x T {}); "
        "Theorem 1 does not hold",
        h.count(), config.leak_every > 0 ? " + k x MTU" : "", need.count(), delta_, per_slot_);
  }
  leak_headroom_ = int64_t{config.leak_every} * link_.max_frame_bytes;
  h_ = as_signed(h) - leak_headroom_;
  frame_time_ =
      serialization_time(Bytes(uint64_t{link_.max_frame_bytes} + link_.overhead_bytes), link.rate);
  for (State& s : state_) s.f = delta_ + per_slot_;  // the upstream starts unpaused
  timer_ = scheduler_.after(config_.slot, [this] { on_slot(); });
}

DciIngress::~DciIngress() {
  scheduler_.cancel(timer_);
}

// All of H is this port's own (headroom with xoff 0), so other ports cannot take it and a
// frame beyond H is dropped as kHeadroomExceeded: an overflow is visible, never hidden.
IngressLimits DciIngress::limits(int priority) const {
  if (!controlled(priority)) return IngressLimits{};
  return IngressLimits{.lossless = true, .xoff = Threshold::fixed(Bytes(0)), .headroom = buffer()};
}

void DciIngress::on_admitted(int priority, const IngressUsage& usage) {
  State& s = state_[priority];
  const uint64_t total = usage.total().count();
  s.received += total - s.last_total;
  s.last_total = total;
}

void DciIngress::on_released(int priority, const IngressUsage& usage) {
  state_[priority].last_total = usage.total().count();
}

// The upstream starts frames while open and finishes the one on the wire when the pause
// arrives, so an open window of w lets through up to Rs x w + S. Closing one frame time
// earlier keeps what it sends within the grant c; an unpaused slot needs no such margin (a
// continuous stream carries exactly Rs x T per slot).
uint16_t DciIngress::pause_quanta(int64_t grant) const {
  if (grant >= per_slot_) return 0;
  const Time open = serialization_time(Bytes(static_cast<uint64_t>(grant)), link_.rate);
  const Time pause =
      grant <= 0 ? full_pause_ : std::min(config_.slot, config_.slot - open + frame_time_);
  const Time quantum = pause_duration(1, link_.rate);
  // Rounded up: a longer pause only grants less.
  int64_t quanta = (pause.picoseconds() + quantum.picoseconds() - 1) / quantum.picoseconds();
  while (pause_duration(static_cast<uint16_t>(quanta), link_.rate) < pause) ++quanta;
  return static_cast<uint16_t>(quanta);
}

void DciIngress::on_slot() {
  ++slot_index_;
  const bool leak_slot = config_.leak_every > 0 && slot_index_ % config_.leak_every == 0;
  ControlFrame frame{};
  for (int p = 0; p < kPriorities; ++p) {
    if (!controlled(p)) continue;
    State& s = state_[p];
    const int64_t l = as_signed(usage(p).total());
    s.f -= static_cast<int64_t>(s.received);
    s.received = 0;
    // F below zero means more arrived than was granted: a leak (a late pause). Left there it
    // cancels the leaked bytes out of L + F; set to zero they show as L + F - H > 0.
    if (leak_slot && s.f < 0) {
      s.counters.leak_deducted += static_cast<uint64_t>(-s.f);
      s.f = 0;
    }
    s.counters.max_excess = std::max(s.counters.max_excess, l + s.f - h_);
    int64_t c = std::min(per_slot_, h_ - l - s.f);
    if (leak_slot) c -= std::max<int64_t>(0, l + s.f - h_);
    c = std::max<int64_t>(0, c);  // a grant cannot be taken back
    const uint16_t quanta = pause_quanta(c);
    if (quanta > 0) {
      frame.class_enable |= static_cast<uint8_t>(1u << p);
      frame.pause_quanta[p] = quanta;
      ++s.counters.pauses;
      if (c == 0) ++s.counters.full_pauses;
    }
    s.f = std::min(delta_ + per_slot_, s.f + c);
    ++s.counters.slots;
    s.counters.min_sum = std::min(s.counters.min_sum, l + s.f);
    s.counters.max_sum = std::max(s.counters.max_sum, l + s.f);
  }
  if (frame.class_enable != 0) reverse_.send_control(frame);
  timer_ = scheduler_.after(config_.slot, [this] { on_slot(); });
}

}  // namespace bifrost::net
