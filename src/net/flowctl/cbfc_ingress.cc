#include "bifrost/net/flowctl/cbfc_ingress.h"

#include <algorithm>

#include "bifrost/core/error.h"
#include "bifrost/net/egress_port.h"

namespace bifrost::net {

CbfcIngress::CbfcIngress(world::Scheduler& scheduler, const CbfcConfig& config, EgressPort& reverse)
    : scheduler_(scheduler), config_(config), reverse_(reverse) {
  if (config.priorities == 0) throw Error("CBFC needs at least one priority to control");
  if (config.update_period <= Time::zero()) {
    throw Error("CBFC update period must be positive, got {} ps",
                config.update_period.picoseconds());
  }
  if (config.field_bits == 1 || config.field_bits > 32) {
    throw Error("CBFC credit fields need 2..32 bits (or 0 for the ideal variant), got {}",
                config.field_bits);
  }
  buffer_blocks_ = config.buffer.count() / kCreditBlockBytes;
  if (buffer_blocks_ == 0) throw Error("CBFC buffer must hold at least one 64-byte block");
  max_outstanding_ = config.field_bits == 0
                         ? buffer_blocks_
                         : std::min(buffer_blocks_, uint64_t{1} << (config.field_bits - 1));
  // The first update goes out at once: the sender starts with no credit.
  timer_ = scheduler_.after(Time::zero(), [this] { send_updates(); });
}

CbfcIngress::~CbfcIngress() {
  scheduler_.cancel(timer_);
}

IngressLimits CbfcIngress::limits(int priority) const {
  if (!controlled(priority)) return IngressLimits{};
  return IngressLimits{
      .lossless = true, .xoff = Threshold::fixed(Bytes(0)), .headroom = config_.buffer};
}

// One call per frame, so the change in bytes is one frame, which holds ceil(bytes / 64) blocks.
void CbfcIngress::on_admitted(int priority, const IngressUsage& usage) {
  State& s = state_[priority];
  const uint64_t total = usage.total().count();
  const uint64_t blocks = credit_blocks(total - s.last_total);
  s.received += blocks;
  s.held += blocks;
  s.last_total = total;
}

void CbfcIngress::on_released(int priority, const IngressUsage& usage) {
  State& s = state_[priority];
  const uint64_t total = usage.total().count();
  s.held -= std::min(s.held, credit_blocks(s.last_total - total));
  s.last_total = total;
}

// FCCL = ABR + free blocks, with no more than the field's half outstanding beyond ABR.
uint64_t CbfcIngress::credit_limit(int priority) const {
  const State& s = state_[priority];
  return s.received + std::min(buffer_blocks_ - s.held, max_outstanding_);
}

void CbfcIngress::send_updates() {
  for (int p = 0; p < kPriorities; ++p) {
    if (!controlled(p)) continue;
    ControlFrame frame{};
    frame.kind = ControlKind::kCreditUpdate;
    frame.class_enable = static_cast<uint8_t>(1u << p);
    frame.credit_limit = static_cast<uint32_t>(credit_limit(p));  // the gate masks the field
    reverse_.send_control(frame);
    ++updates_sent_;
  }
  timer_ = scheduler_.after(config_.update_period, [this] { send_updates(); });
}

}  // namespace bifrost::net
