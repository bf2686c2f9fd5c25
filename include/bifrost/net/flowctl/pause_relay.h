#pragma once
// The long-link half of a SWING relay's flow control, on the relay's remote ingress port. It
// makes no decision of its own: every pause frame the relay's downstream (its DCI switch) sends
// it is passed on upstream over the long link for the priorities it protects, its time
// converted to the long link's rate, so the far relay is closed whenever this relay's local
// egress is, one relay delay later. Each protected priority gets `buffer` bytes of its own on
// this port (headroom with xoff 0) for what the relayed pause cannot stop; a byte beyond them is
// a kHeadroomExceeded drop.
#include <array>
#include <cstdint>

#include "bifrost/core/bytes.h"
#include "bifrost/net/flowctl/flow_control.h"
#include "bifrost/net/swing_relay.h"

namespace bifrost::net {

struct PauseRelayCounters {
  std::array<uint64_t, kPriorities> pauses_relayed{};   // nonzero time for p
  std::array<uint64_t, kPriorities> resumes_relayed{};  // zero time for p
};

// Pause quanta at `to` that last at least as long as `quanta` at `from` (0xFFFF at most).
uint16_t relayed_quanta(uint16_t quanta, Rate from, Rate to);

class PauseRelayIngress final : public IngressFlowControl, public ControlListener {
 public:
  // `reverse` is the relay's egress on the long link (relayed pauses leave through it),
  // `downstream` its egress towards the DCI switch (the relayed pauses arrive on that link).
  // Throws Error if either has no link yet.
  PauseRelayIngress(uint8_t priorities, Bytes buffer, EgressPort& reverse,
                    const EgressPort& downstream);

  IngressLimits limits(int priority) const override;
  // The relay decides on the downstream's frames, not on its own buffer.
  uint8_t watched_priorities() const override { return 0; }
  void on_admitted(int /*priority*/, const IngressUsage& /*usage*/) override {}
  void on_released(int /*priority*/, const IngressUsage& /*usage*/) override {}
  void on_control_arrived(const ControlFrame& frame) override;

  Bytes buffer() const { return buffer_; }
  const PauseRelayCounters& counters() const { return counters_; }

 private:
  uint8_t priorities_;
  Bytes buffer_;
  EgressPort& reverse_;
  Rate from_;
  Rate to_;
  PauseRelayCounters counters_;
};

}  // namespace bifrost::net
