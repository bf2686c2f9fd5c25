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
// pacing target cwnd / base RTT became unbounded: experiments/rogue-convergence). Upward, a
// NIC that spends a little more per batch than B_sig / rate adds that much to every later
// sample: milliseconds on an empty link. Two options of ours (off: §3.3 as written):
//
// `Floor::idle_start`: no sample goes below the least sample of a batch that found the NIC
// idle by the formula (t_start = its own t_enq); the paper's only guard is footnote 1's lower
// bound on the base RTT, "an estimate of the minimum RTT possible", with no value. It stops the
// drift down, not up, and "idle by the formula" may be an overestimated RTT_{i-1}.
//
// `anchor_every` = k > 0 (Floor::anchored): the chain is cut every k batches. A batch enqueued
// while none is outstanding is an *anchor*: every earlier batch's completion is in, so its last
// byte has left and the NIC starts this batch when it is posted; §3.3's max() already gives it
// t_start = t_enq, with no chained term. After k - 1 chained batches anchor_due() says so, and
// the caller (BatchWindow) holds the next batch until the outstanding ones complete and the
// limiter has regained its burst credit: the NIC idles about one RTT every k batches. What the
// anchor spends on the NIC is then known too (idle_batch_serialization: the credit at the line
// rate, no trailing pacing gap; B_sig / rate would undercount its RTT by up to the credit).
// Between anchors a chained sample's error is at most the per-batch error summed over k - 1
// batches, and no sample goes below the least anchored one the caller trusts (not one held off
// after a rate change, whose rate may not be the one the NIC applied), so a zero is no longer
// absorbing. Only the NIC's completion timestamps, a clock read before posting and the limiter
// settings software chose are used, as §3.3 does; what is new is when software posts.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>

#include "bifrost/transport/rtt/rogue_batch.h"

namespace bifrost::transport {

class RogueRcRttEstimator {
 public:
  // Which samples bound the others from below.
  enum class Floor : uint8_t { none, idle_start, anchored };

  explicit RogueRcRttEstimator(Rate line_rate, bool idle_start_floor = false)
      : line_rate_(line_rate), floor_kind_(idle_start_floor ? Floor::idle_start : Floor::none) {}
  // The anchored variant: every `anchor_every`-th batch at the latest is an anchor (> 0). An
  // anchor is posted once its limiter has regained its whole `burst` credit (the caller waits:
  // BatchWindow::anchor_wait), so its time on the NIC is idle_batch_serialization's.
  RogueRcRttEstimator(Rate line_rate, uint32_t anchor_every, Bytes burst);

  // A batch is about to be enqueued; returns its number (0, 1, 2, ...).
  uint64_t on_enqueue(const RogueBatch& batch);
  // The signaled completion of the oldest outstanding batch (RC completes in order) at NIC
  // time t_comp: its RTT sample. Throws Error when no batch is outstanding.
  Time on_completion(Time t_comp);
  // The same, with B_sig divided by `applied_rate` (0: unlimited), the rate the NIC applied
  // while it sent the batch, where that is known better than the limit in force at enqueue
  // (a change that landed part-way: rogue/applied_rate.h).
  Time on_completion(Time t_comp, Rate applied_rate);
  // The oldest outstanding batch's sample will not be trusted by its caller (RoGUE's hold-off:
  // the rate it was timed at may not be the one the NIC applied), so it may not set the
  // anchored floor (the idle-start floor keeps its own rule).
  void distrust_oldest();
  // Forgets the outstanding batches and the previous completion (a QP switch: the shadow QP
  // starts from an idle NIC queue, so its first batch starts at its t_enq).
  void restart();

  // Anchored variant: the next batch must wait until none is outstanding (it is the k-th since
  // the last anchor). Always false otherwise.
  bool anchor_due() const { return anchor_every_ > 0 && chained_ + 1 >= anchor_every_; }

  std::size_t outstanding() const { return batches_.size(); }
  uint64_t next_batch() const { return next_; }
  // Samples raised to the floor.
  uint64_t floored() const { return floored_; }
  // Batches enqueued with none outstanding (anchors), in any variant.
  uint64_t anchors() const { return anchors_; }

 private:
  struct Previous {
    Time t_comp;
    Time rtt;
  };
  struct Pending {
    RogueBatch batch;
    bool anchor = false;  // enqueued with none outstanding
    bool trusted = true;  // may set the floor (distrust_oldest)
  };

  Rate line_rate_;
  Floor floor_kind_;
  uint32_t anchor_every_ = 0;
  Bytes burst_{0};
  std::deque<Pending> batches_;
  std::optional<Previous> previous_;
  std::optional<Time> floor_;  // the least positive sample of the floor's kind
  uint64_t chained_ = 0;       // batches enqueued since the last anchor
  uint64_t next_ = 0;
  uint64_t floored_ = 0;
  uint64_t anchors_ = 0;
};

}  // namespace bifrost::transport
