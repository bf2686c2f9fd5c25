#pragma once
// The downstream half of Bifrost DCI, at a switch ingress port facing a long-haul link. Every
// time slot T, per controlled priority, a DciRule (dci_rule.h: Algorithm 1 with bifrost's
// deviations or as printed, docs/net.md "Bifrost DCI") turns L = bytes from this port in the buffer
// and r = bytes received in the slot into a pause and the new virtual incoming bytes F; the pause
// goes out as a standard pause frame in 512-bit quanta rounded up. The upstream half is the
// unchanged PfcGate. The buffer is H + k x S per priority, reserved for the port (headroom with
// xoff 0), so anything beyond it is a kHeadroomExceeded drop; the k x S above H absorbs leaks
// until leak handling deducts them.
#include <cstdint>
#include <optional>
#include <vector>

#include "bifrost/net/flowctl/dci_config.h"
#include "bifrost/net/flowctl/dci_rule.h"
#include "bifrost/net/flowctl/flow_control.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::net {

class EgressPort;

struct DciPriorityCounters {
  uint64_t slots = 0;
  uint64_t pauses = 0;       // slots that sent p > 0
  uint64_t full_pauses = 0;  // slots that granted nothing
  // Bytes of over-grant found by leak handling: L + F - H > 0 (with
  // DciDeviations::reset_negative_f, also F below zero).
  uint64_t leak_deducted = 0;
  // L + F - H as leak handling saw it before the grant (after any reset of F): above
  // zero only when leaked bytes were found; its maximum over all slots.
  int64_t max_excess = INT64_MIN;
  // L + F after each slot's grant, extremes over all slots after the first.
  int64_t min_sum = INT64_MAX;
  int64_t max_sum = INT64_MIN;
};

class DciIngress final : public IngressFlowControl {
 public:
  // `reverse` is this node's egress port on the same link. Throws Error for a configuration
  // that breaks the preconditions of Theorem 1 (see check in the .cc). `rule` replaces the
  // rule's parameters the configuration gives (dci_rule_params; tests run variants with it).
  DciIngress(world::Scheduler& scheduler, const DciConfig& config, const DciLinkParams& link,
             EgressPort& reverse, const std::optional<DciRuleParams>& rule = std::nullopt);
  ~DciIngress() override;

  IngressLimits limits(int priority) const override;
  uint8_t watched_priorities() const override { return config_.priorities; }
  void on_admitted(int priority, const IngressUsage& usage) override;
  void on_released(int priority, const IngressUsage& usage) override;

  // The buffer reserved per priority: H + k x S.
  Bytes buffer() const { return Bytes(static_cast<uint64_t>(h_ + leak_headroom_)); }
  // H: what the algorithm grants up to.
  Bytes target() const { return Bytes(static_cast<uint64_t>(h_)); }
  Bytes delta() const { return Bytes(static_cast<uint64_t>(delta_)); }
  Bytes per_slot() const { return Bytes(static_cast<uint64_t>(per_slot_)); }
  // The algorithm's state of a priority after the last slot.
  int64_t virtual_incoming(int priority) const { return state_[priority].vars.f; }
  const DciPriorityCounters& counters(int priority) const { return state_[priority].counters; }

 private:
  struct State {
    DciVariables vars;
    uint64_t received = 0;    // bytes admitted since the last slot
    uint64_t last_total = 0;  // usage total after the last event, to turn usage into bytes
    DciPriorityCounters counters;
  };

  void on_slot();
  // Pause quanta for a pause of `pause` (0: none), rounded up: a longer pause only grants less.
  uint16_t pause_quanta(Time pause) const;
  bool controlled(int priority) const { return (config_.priorities >> priority) & 1; }

  world::Scheduler& scheduler_;
  DciConfig config_;
  DciLinkParams link_;
  EgressPort& reverse_;
  int64_t h_ = 0;
  int64_t leak_headroom_ = 0;  // k x S
  int64_t delta_ = 0;
  int64_t per_slot_ = 0;  // Rs x T
  DciRule rule_;
  uint64_t slot_index_ = 0;
  world::TimerId timer_{};
  std::vector<State> state_;  // per priority
};

}  // namespace bifrost::net
