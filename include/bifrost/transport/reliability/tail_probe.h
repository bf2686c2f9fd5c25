#pragma once
// When a sender's tail-loss probe may be armed and how long it waits. The caller owns the timer;
// this is the rule and what it has learned.
//
// The fixed rule (`learns` false): max(2 srtt + ack_timer, min_rto / 4), and at most one probe
// until an ACK acknowledges new data (RFC 8985 §7): a probe fired before the ACKs could return
// (a queue longer than 2 srtt) declares data lost whose late ACKs are stale and give no RTT
// sample, so probing again after the same short delay resent every tail each ~130 us and srtt
// never learned the queue (bifrost-incast at Fig. 9's setup: no RPC completed).
//
// The learning rule (`learns` true) keeps the fixed rule until a probe's own outcome shows it
// was needed; from then on (until a probe proves spurious):
// - the delay is 2 srtt + the receiver's delay in acknowledging a hinted WQE (eq. (1)'s
//   T3' - T2, smoothed as the RTT is, srtt + 4 rttvar of it; ack_timer until one is seen), at
//   least `floor`. The receiver acknowledges a hinted WQE at once, so on a fast path the probe
//   comes a few round trips after the tail, not after the 120 us ACK timer;
// - a probe's outcome: the WQEs of one QP arrive in order, so if an ACK acknowledges something
//   posted after the probe (its copy) and no ACK has named the probed original, the original
//   was lost and the probe was needed; if the original's ACK comes after all, the probe was
//   spurious (a queue, not a loss). After a needed probe a lost copy is probed again, each
//   probe waiting twice the previous (until new data is acknowledged), instead of waiting for
//   the RTO; after a spurious one the one-probe rule is back.
#include <algorithm>
#include <cstdint>

#include "bifrost/core/time.h"
#include "bifrost/transport/rtt/rtt_estimator.h"

namespace bifrost::transport {

class TailProbe {
 public:
  struct Settings {
    bool learns = false;
    Time ack_timer;
    Time min_rto;
    Time floor;
  };
  explicit TailProbe(Settings s) : s_(s) {}

  // May a probe be armed for a tail that just left the NIC?
  bool may_arm() const { return !spent_ || (s_.learns && needed_); }
  Time delay(const RttEstimator& rtt) const {
    // Until a probe proved needed, the fixed rule's conservative delay: a queue growing faster
    // than srtt follows (bifrost-two-pods' full mesh, Swift) made 2 srtt + the ACK delay fire
    // on data only queued, and a probed chunk goes again as unit pieces.
    if (!s_.learns || !needed_) return std::max(rtt.srtt() * 2 + s_.ack_timer, s_.min_rto / 4);
    const Time receiver = ack_delay_.has_sample() ? ack_delay_.rto(Time::zero()) : s_.ack_timer;
    const Time base = std::max(rtt.srtt() * 2 + receiver, s_.floor);
    return base * (int64_t{1} << std::min(probes_in_a_row_, kMaxBackoffShift));
  }

  // The ACK of a hinted WQE reported how long the receiver took to send it.
  void on_hinted_ack_delay(Time delay) { ack_delay_.add(delay); }
  // A probe fired for the WQE `tail`; WQEs numbered `next_global` and above are posted after it.
  void on_fired(uint64_t tail, uint64_t next_global) {
    spent_ = true;
    ++probes_in_a_row_;
    probed_ = tail;
    posted_after_ = next_global;
    outcome_pending_ = true;
  }
  // One entry of an ACK: the WQE numbered `global`, newly acknowledged or not (stale).
  void on_ack_entry(uint64_t global, bool newly_acked) {
    if (!outcome_pending_) return;
    named_original_ |= global == probed_;
    acked_after_ |= newly_acked && global >= posted_after_;
  }
  // After the entries of one ACK (newly_acked_data: it acknowledged new bytes).
  void on_ack_end(bool newly_acked_data) {
    if (outcome_pending_ && (named_original_ || acked_after_)) {
      needed_ = !named_original_;
      outcome_pending_ = false;
      named_original_ = acked_after_ = false;
    }
    if (newly_acked_data) {
      spent_ = false;  // the next tail may be probed
      probes_in_a_row_ = 0;
    }
  }
  // The last probe whose outcome is known was needed (the original was lost).
  bool last_was_needed() const { return needed_; }

 private:
  static constexpr uint32_t kMaxBackoffShift = 6;
  Settings s_;
  RttEstimator ack_delay_;  // the receiver's delay for hinted WQEs
  bool spent_ = false;      // a probe fired and no ACK has acknowledged new data since
  uint32_t probes_in_a_row_ = 0;
  bool needed_ = false;  // learned from the last probe whose outcome is known
  bool outcome_pending_ = false;
  uint64_t probed_ = 0;
  uint64_t posted_after_ = 0;
  bool named_original_ = false;
  bool acked_after_ = false;
};

}  // namespace bifrost::transport
