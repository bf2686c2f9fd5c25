#pragma once
// The upstream half of CBFC, in the egress port at the far end of a link (a switch port or a
// host NIC): sends a frame of a controlled priority only if its blocks fit under the last
// credit limit received, counting FCTBS as frames start. Before the first update there is no
// credit (InfiniBand's initial state).
#include <array>
#include <cstdint>

#include "bifrost/net/flowctl/cbfc_config.h"
#include "bifrost/net/flowctl/flow_control.h"

namespace bifrost::net {

class CbfcGate final : public EgressGate {
 public:
  // Throws Error for field_bits other than 0 (ideal) or 2..32.
  explicit CbfcGate(const CbfcConfig& config);

  bool may_send(int priority, uint32_t frame_bytes) const override;
  void on_transmit(int priority, uint32_t frame_bytes) override;
  void on_control(const ControlFrame& frame) override;

  uint64_t blocks_sent(int priority) const { return fctbs_[priority]; }
  uint64_t updates_received() const { return updates_received_; }

 private:
  bool controlled(int priority) const { return (priorities_ >> priority) & 1; }

  uint8_t priorities_;
  uint64_t mask_;  // 2^bits - 1, or all ones when ideal
  uint64_t half_;  // the largest credit the wrapped comparison accepts
  std::array<uint64_t, kPriorities> fctbs_{};
  std::array<uint64_t, kPriorities> fccl_{};  // as received (wrapped when limited)
  uint64_t updates_received_ = 0;
};

}  // namespace bifrost::net
