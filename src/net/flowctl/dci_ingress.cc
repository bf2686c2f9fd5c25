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
                       const DciLinkParams& link, EgressPort& reverse,
                       const std::optional<DciRuleParams>& rule)
    : scheduler_(scheduler),
      config_(config),
      link_(link),
      reverse_(reverse),
      rule_(rule.value_or(dci_rule_params(config, link))) {
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
  if (pause_duration(0xFFFF, link.rate) < rule_.full_pause()) {
    throw Error(
        "DCI full pause (slot + guard, {} ps) does not fit the 16-bit pause field ({} ps at {} "
        "Gb/s)",
        rule_.full_pause().picoseconds(), pause_duration(0xFFFF, link.rate).picoseconds(),
        link.rate.gbps());
  }
  delta_ = rule_.params().delta;
  per_slot_ = rule_.params().per_slot;
  const Bytes need = dci_min_buffer(link_, config.slot, config.leak_every);
  const Bytes h = config.buffer.value_or(need);
  if (h < need) {
    throw Error(
        "DCI buffer H = {} bytes is below Delta + 2 x Rs x T{} = {} bytes (Delta {}, Rs x T {}); "
        "Theorem 1 does not hold",
        h.count(), config.leak_every > 0 ? " + k x MTU" : "", need.count(), delta_, per_slot_);
  }
  leak_headroom_ = int64_t{config.leak_every} * link_.max_frame_bytes;
  h_ = as_signed(h) - leak_headroom_;  // the buffer's, whatever rule runs in it
  state_.assign(kPriorities, State{.vars = rule_.start(), .counters = {}});
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

uint16_t DciIngress::pause_quanta(Time pause) const {
  if (pause <= Time::zero()) return 0;
  const Time quantum = pause_duration(1, link_.rate);
  int64_t quanta = (pause.picoseconds() + quantum.picoseconds() - 1) / quantum.picoseconds();
  while (quanta < 0xFFFF && pause_duration(static_cast<uint16_t>(quanta), link_.rate) < pause) {
    ++quanta;
  }
  return static_cast<uint16_t>(std::min<int64_t>(quanta, 0xFFFF));
}

void DciIngress::on_slot() {
  ++slot_index_;
  ControlFrame frame{};
  for (int p = 0; p < kPriorities; ++p) {
    if (!controlled(p)) continue;
    State& s = state_[p];
    const int64_t l = as_signed(usage(p).total());
    const DciSlotResult r =
        rule_.update(s.vars, {.l = l, .r = static_cast<int64_t>(s.received), .n = slot_index_});
    s.received = 0;
    s.counters.leak_deducted += static_cast<uint64_t>(r.found);
    s.counters.max_excess = std::max(s.counters.max_excess, r.excess);
    const uint16_t quanta = pause_quanta(r.pause);
    if (quanta > 0) {
      frame.class_enable |= static_cast<uint8_t>(1u << p);
      frame.pause_quanta[p] = quanta;
      ++s.counters.pauses;
    }
    if (r.grant <= 0) ++s.counters.full_pauses;
    ++s.counters.slots;
    s.counters.min_sum = std::min(s.counters.min_sum, l + s.vars.f);
    s.counters.max_sum = std::max(s.counters.max_sum, l + s.vars.f);
  }
  if (frame.class_enable != 0) reverse_.send_control(frame);
  timer_ = scheduler_.after(config_.slot, [this] { on_slot(); });
}

}  // namespace bifrost::net
