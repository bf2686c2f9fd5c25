#pragma once
// One time slot of Bifrost DCI's Algorithm 1 for one priority: from the queue L, the bytes r
// received in the slot and the slot number n to the pause to send and the new virtual incoming
// bytes F. With every deviation off it is the algorithm as printed (lines 10-17); bifrost turns
// on those a test shows the printed form fail without. docs/net.md, "Bifrost DCI", explains
// each.
#include <cstdint>
#include <vector>

#include "bifrost/core/rate.h"
#include "bifrost/core/time.h"
#include "bifrost/net/flowctl/dci_config.h"

namespace bifrost::net {

// Bifrost's departures from the printed algorithm, each with the test that shows the printed
// form fail (tests/net/dci_oracle_property_test.cc unless named otherwise).
struct DciDeviations {
  // F -= r before c is computed (printed: after): DciOracleLiteral.PrintedOrderOfRAndCTrips.
  bool subtract_r_first = true;
  // Leak slots deduct max(0, L + F - H) (printed: L + F - H, which grows c when nothing
  // leaked): DciOracleLiteral.SignedOverGrantDeductionTrips.
  bool only_over_grant = true;
  // Off by default, as printed: no test shows the printed form fail
  // (DciOracleLiteral.PrintedFUpdateAndNoNegativeResetHold). With the guard, seeds 1 to 100 of
  // the oracle (dci_oracle_property_test.cc) give the same verdicts with both off, both on, or
  // no leak handling at all; only the printed F += c with the reset on trips two seeds more
  // (55, 93). Without the guard both fail alike
  // (DciOracleLiteral.FUpdateAndNegativeResetDoNotStopChainLeaksWithoutTheGuard).
  // F += c-hat, at least 0 (printed: c).
  bool count_granted = false;
  // Leak slots reset a negative F to 0 (printed: no reset).
  bool reset_negative_f = false;
  // The open window closes one frame time early (printed: p = T - c-hat / Rs):
  // DciOracleLiteral.WithoutEarlyCloseTrips.
  bool close_early = true;
  // A full pause lasts T + guard (printed: T): DciOracle.PaperOneSlotFullPausesFailInAChain.
  bool guard = true;
  // F at most the grants of the last round trip (printed: no bound):
  // DciOracleLiteral.UnboundedFTrips.
  bool forget_stale = true;

  static constexpr DciDeviations none() {
    return {false, false, false, false, false, false, false};
  }
};

// The grants of the last n slots and their sum. Every byte a grant lets through arrives within
// Delta / Rs + T of it, so the sum bounds what can still arrive; F, which keeps what the
// upstream was granted but did not send (a window closed before a frame fitted), can drift
// above it.
class GrantWindow {
 public:
  // Starts full of `each` (the upstream starts unpaused).
  GrantWindow(std::size_t slots, int64_t each)
      : grants_(slots, each), sum_(each * int64_t(slots)) {}
  void push(int64_t grant) {
    sum_ += grant - grants_[next_];
    grants_[next_] = grant;
    next_ = (next_ + 1) % grants_.size();
  }
  int64_t sum() const { return sum_; }

 private:
  std::vector<int64_t> grants_;
  std::size_t next_ = 0;
  int64_t sum_ = 0;
};

// What the algorithm keeps for one priority between slots.
struct DciVariables {
  int64_t f = 0;  // F
  GrantWindow recent;
};

struct DciRuleParams {
  int64_t h = 0;            // H: what the algorithm grants up to
  int64_t delta = 0;        // Delta
  int64_t per_slot = 0;     // Rs x T
  int64_t frame = 0;        // S
  uint32_t leak_every = 0;  // k; 0: no leak handling
  Rate rate{};              // Rs
  Time slot{};              // T
  Time frame_time{};        // wire time of the largest frame
  Time guard{};             // dci_pause_guard
  DciDeviations deviations;
};

struct DciSlotInput {
  int64_t l = 0;   // L: the port's bytes of this priority in the buffer
  int64_t r = 0;   // bytes received in the slot
  uint64_t n = 0;  // slot number, from 1
};

struct DciSlotResult {
  int64_t grant = 0;   // what F counted for the slot one round trip later
  Time pause{};        // the pause to send; none when not positive
  int64_t found = 0;   // over-grant leak handling found in this slot
  int64_t excess = 0;  // L + F - H as leak handling saw it
};

class DciRule {
 public:
  explicit DciRule(const DciRuleParams& params) : p_(params) {}
  // The variables before the first slot: F = Delta + Rs x T (line 1).
  DciVariables start() const;
  // Updates the variables for one slot.
  DciSlotResult update(DciVariables& v, const DciSlotInput& in) const;
  const DciRuleParams& params() const { return p_; }
  // The longest pause it sends when nothing is granted: T, or T + guard.
  Time full_pause() const { return p_.slot + (p_.deviations.guard ? p_.guard : Time::zero()); }

 private:
  Time pause_for(int64_t grant) const;
  DciRuleParams p_;
};

// The parameters DciIngress derives from its configuration and link: H without the k x S leak
// headroom, Delta, Rs x T, and bifrost's deviations (none with `literal`, the guard as
// `guard_full_pauses` says). Assumes a configuration that passed DciIngress's checks.
DciRuleParams dci_rule_params(const DciConfig& config, const DciLinkParams& link);

}  // namespace bifrost::net
