#include "bifrost/net/flowctl/cbfc_gate.h"

#include "bifrost/core/error.h"
#include "bifrost/net/egress_port.h"

namespace bifrost::net {

CbfcGate::CbfcGate(const CbfcConfig& config)
    : EgressGate(/*checks_frame_size=*/true), priorities_(config.priorities) {
  if (config.field_bits == 1 || config.field_bits > 32) {
    throw Error("CBFC credit fields need 2..32 bits (or 0 for the ideal variant), got {}",
                config.field_bits);
  }
  mask_ = config.field_bits == 0 ? ~uint64_t{0} : (uint64_t{1} << config.field_bits) - 1;
  half_ = config.field_bits == 0 ? 0 : uint64_t{1} << (config.field_bits - 1);
}

// InfiniBand's test on wrapped fields: the credit left after this frame, modulo 2^bits, must be
// at most half the field (a larger value means the frame would go beyond the limit).
bool CbfcGate::may_send(int priority, uint32_t frame_bytes) const {
  if (!controlled(priority)) return true;
  const uint64_t after = fctbs_[priority] + credit_blocks(frame_bytes);
  if (half_ == 0) return after <= fccl_[priority];
  return ((fccl_[priority] - after) & mask_) <= half_;
}

void CbfcGate::on_transmit(int priority, uint32_t frame_bytes) {
  if (controlled(priority)) fctbs_[priority] += credit_blocks(frame_bytes);
}

void CbfcGate::on_control(const ControlFrame& frame) {
  if (frame.kind != ControlKind::kCreditUpdate) return;
  ++updates_received_;
  for (int p = 0; p < kPriorities; ++p) {
    if (((frame.class_enable >> p) & 1) && controlled(p)) fccl_[p] = frame.credit_limit & mask_;
  }
  port()->wake();  // the frame at the head may fit now
}

}  // namespace bifrost::net
