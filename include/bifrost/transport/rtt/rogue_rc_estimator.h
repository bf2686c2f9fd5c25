#pragma once
// RoGUE's RTT per batch over RC (§3.3). Batches are enqueued back to back (at least two, so the
// NIC never starves), so a batch's own enqueue time is not when its first byte left: the NIC
// may still be sending the batch before. The previous batch's completion came exactly one RTT
// after its last byte left, which is when this batch's first byte left, so
//   t_start_i = max(t_enq_i, t_comp_{i-1} - RTT_{i-1})
//   RTT_i     = t_comp_i - t_start_i - B_sig_i / rate_limit_i
// (batch_serialization: wire bytes at the limit in force when enqueued, the line rate when
// unlimited). The first batch starts at its t_enq. A negative result is reported as zero, and
// that zero is the RTT_{i-1} the next batch uses. Pure: fed explicit NIC-clock times.
//
// The chain carries any error of RTT_{i-1} into RTT_i unchanged, and a zero is absorbing: with
// the NIC never idle, every later sample is then the completions' spacing minus the batch's
// serialization, about zero (a 40 Gb/s parking lot drifted two of four flows there, and their
// pacing target cwnd / base RTT became unbounded: experiments/rogue-convergence). With
// `idle_start_floor` (ours; the paper's only guard is footnote 1's lower bound on the base RTT,
// "an estimate of the minimum RTT possible", with no value) no sample goes below the least
// sample of a batch that found the NIC idle (t_start = its own t_enq, so no chain in it): the
// least RTT this connection has measured without the chain.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>

#include "bifrost/transport/rtt/rogue_batch.h"

namespace bifrost::transport {

class RogueRcRttEstimator {
 public:
  explicit RogueRcRttEstimator(Rate line_rate, bool idle_start_floor = false)
      : line_rate_(line_rate), idle_start_floor_(idle_start_floor) {}

  // A batch is about to be enqueued; returns its number (0, 1, 2, ...).
  uint64_t on_enqueue(const RogueBatch& batch);
  // The signaled completion of the oldest outstanding batch (RC completes in order) at NIC
  // time t_comp: its RTT sample. Throws Error when no batch is outstanding.
  Time on_completion(Time t_comp);
  // The same, with B_sig divided by `applied_rate` (0: unlimited), the rate the NIC applied
  // while it sent the batch, where that is known better than the limit in force at enqueue
  // (a change that landed part-way: rogue/applied_rate.h).
  Time on_completion(Time t_comp, Rate applied_rate);
  // Forgets the outstanding batches and the previous completion (a QP switch: the shadow QP
  // starts from an idle NIC queue, so its first batch starts at its t_enq).
  void restart();

  std::size_t outstanding() const { return batches_.size(); }
  uint64_t next_batch() const { return next_; }
  // Samples raised to the idle-start floor.
  uint64_t floored() const { return floored_; }

 private:
  struct Previous {
    Time t_comp;
    Time rtt;
  };

  Rate line_rate_;
  bool idle_start_floor_;
  std::deque<RogueBatch> batches_;
  std::optional<Previous> previous_;
  std::optional<Time> floor_;  // the least positive idle-start sample
  uint64_t next_ = 0;
  uint64_t floored_ = 0;
};

}  // namespace bifrost::transport
