#pragma once
// When a sender's retransmission timeout falls due: the time of its last progress, and the
// exponential backoff over consecutive timeouts. The caller owns the timer itself (and the RTT
// estimate `base` that the timeout scales); this is only the arithmetic and its state.
//
// It also counts the *silent* timeouts, the evidence for giving up a QP's path: consecutive
// timeouts with no ACK at all for anything the QP carried. A late ACK that acknowledges
// nothing new (its WQE was already declared lost) ends the backoff's reason no less than a
// fresh one ends the path's: the path delivers, it is only queued. That is what a NIC's RC
// retry counter counts (any response resets it), the paper's rule for RC (§3.4.2 B: "two retry
// times"); counting every timeout without new data instead failed over thousands of healthy
// QPs in Fig. 9's incast, whose start queues ~1 ms behind a 500 us RTO (bifrost-incast).
#include <algorithm>
#include <cstdint>

#include "bifrost/core/time.h"

namespace bifrost::transport {

class RtoClock {
 public:
  // The RTO doubles per consecutive timeout, at most 2^max_backoff_shift times.
  explicit RtoClock(uint32_t max_backoff_shift = 6) : max_shift_(max_backoff_shift) {}

  // A WQE left the NIC (its send completion). Onto a wire with nothing else unacknowledged the
  // clock starts afresh: time a WQE spent queued in the sender's NIC (behind other QPs' WQEs,
  // or paced), which no RTT sample contains, is no time in which it could have been lost.
  // Unless the wire is empty because its WQEs were declared lost: a tail probe resending one
  // WQE at a time on a dead path must not keep the timeouts (and the failover they lead to)
  // from ever coming.
  void on_sent(Time now, bool wire_empty) {
    if (wire_empty && !loss_unrepaired_) last_progress_ = now;
  }
  // Something was delivered (an RC completion): the clock restarts.
  void on_progress(Time now) {
    last_progress_ = now;
    loss_unrepaired_ = false;
  }
  // A software ACK acknowledged new bytes: the clock restarts and the backoff ends.
  void on_acked(Time now) {
    on_progress(now);
    timeouts_in_a_row_ = 0;
    silent_timeouts_ = 0;
  }
  // An ACK named something the current QP carried, new or not: its path is alive.
  void on_answer() { silent_timeouts_ = 0; }
  // The QP was given up: its successor starts with no silent timeouts.
  void on_failover() { silent_timeouts_ = 0; }
  void on_loss() { loss_unrepaired_ = true; }
  // The timeout fired: backs off and restarts the clock. Returns the consecutive timeouts.
  uint32_t on_timeout(Time now) {
    ++timeouts_in_a_row_;
    ++silent_timeouts_;
    last_progress_ = now;
    return timeouts_in_a_row_;
  }

  Time rto(Time base) const {
    return base * (int64_t{1} << std::min(timeouts_in_a_row_, max_shift_));
  }
  Time deadline(Time base) const { return last_progress_ + rto(base); }
  bool expired(Time now, Time base) const { return now - last_progress_ >= rto(base); }
  Time last_progress() const { return last_progress_; }
  uint32_t timeouts_in_a_row() const { return timeouts_in_a_row_; }
  // Timeouts since the current QP last answered (or took over).
  uint32_t silent_timeouts() const { return silent_timeouts_; }

 private:
  uint32_t max_shift_;
  Time last_progress_;
  uint32_t timeouts_in_a_row_ = 0;
  uint32_t silent_timeouts_ = 0;
  bool loss_unrepaired_ = false;  // WQEs declared lost since the last progress
};

}  // namespace bifrost::transport
