#pragma once
// One direction of a RoGUE connection's congestion control: WRITE/SEND data going out, or READ
// data coming back. It owns the Vegas window, the per-batch RTT estimator of the QP type, the
// rate put on the limiter and RoGUE's hold-off after a rate change, and the batches in flight.
#include <cstdint>
#include <deque>
#include <optional>

#include "applied_rate.h"
#include "bifrost/core/rng.h"
#include "bifrost/transport/cc/vegas.h"
#include "bifrost/transport/rogue/rogue_config.h"
#include "bifrost/transport/rogue/rogue_stats.h"
#include "bifrost/transport/rtt/rogue_rc_estimator.h"
#include "bifrost/transport/rtt/rogue_uc_estimator.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::transport::rogue {

class RogueConnection;

class BatchWindow {
 public:
  enum class Direction : uint8_t { write, read };

  BatchWindow(RogueConnection& connection, const RogueConfig& config, Direction direction,
              RogueStats& stats);
  ~BatchWindow();

  // Whether a new batch may be enqueued: fewer than min_batches in flight, or room in the
  // window for `batch_bytes` more; never while the UC sample timeout holds posting.
  bool may_post(uint64_t batch_bytes) const;
  // RC with rc_anchor_every: the anchor that is due may go only from the returned time on (its
  // limiter must have regained its whole burst credit, rtt/rogue_rc_estimator.h); nullopt: no
  // wait (none due, batches still outstanding, or ready).
  std::optional<Time> anchor_wait() const;
  // A batch opens with the NIC clock read before its first verb is enqueued (t_enq); it is
  // handed to the estimator once its verbs are in (close_batch).
  void open_batch(Time t_enq);
  void close_batch();
  uint64_t current_batch() const { return batches_.back().id; }
  // A verb of the current batch: its payload and the wire bytes it puts through the limiter.
  void add_bytes(uint64_t bytes, uint64_t wire_bytes, uint64_t packets);
  // The batch's signal: RC its completion (t_comp), UC the send completion of its last verb.
  void on_signal(uint64_t batch, Time at);
  // UC: the peer's echo for the batch whose sequence ends in `sequence`.
  void on_echo(uint8_t sequence, Time response_time, Time arrival);
  // RC: the QP failed; its batches will never be signalled (their bytes go again as new ones).
  void forget_batches();
  // The active QP changed: the rate in force goes on the new one's limiter.
  void reapply_rate();
  // READ: bytes of READ responses that arrived (the hold-off's count for the peer's limiter).
  void on_read_bytes(uint64_t bytes) { read_bytes_ += bytes; }

  bool idle() const { return batches_.empty(); }
  uint32_t batches_in_flight() const { return static_cast<uint32_t>(batches_.size()); }
  bool gated() const { return gated_; }
  uint64_t window_bytes() const { return cc_.window_bytes(); }
  uint64_t bytes_in_flight() const { return in_flight_; }
  std::optional<Rate> rate() const { return applied_; }
  const Vegas& vegas() const { return cc_; }
  // A trace event of this window's state now (rogue_stats.h).
  TraceEvent event(TraceEvent::Kind kind) const;

 private:
  struct Batch {
    uint64_t id = 0;  // the estimator's number
    uint64_t bytes = 0;
    RogueBatch timing;
    uint64_t sent_before = 0;  // bytes through the limiter when it was enqueued
    Time enqueued_at;          // scheduler time, for the UC sample timeout
    // Its stretch of the limiter's units (bytes_through_limiter()'s unit), for the rate the
    // NIC applied to it (applied_rate.h).
    uint64_t first_unit = 0;
    uint64_t units = 0;
  };

  bool uc() const { return config_.qp_type == QpType::uc; }
  // The burst credit of this direction's limiter (a READ's is the peer's, the same kind of NIC).
  Bytes limiter_burst() const;
  // RoGUE's hold-off (§3.3): a batch enqueued before H bytes had left the limiter since the
  // last rate change may have queued behind the old rate; its sample misleads the CC.
  bool held_off(const Batch& b) const { return b.sent_before < holdoff_until_; }
  // A sample for batch `b`: to the CC unless it is held off; then the rate.
  void take_sample(const Batch& b, Time rtt);
  void apply_rate();
  // Bytes that have left the rate limiter this direction's data goes through.
  uint64_t bytes_through_limiter() const;
  void drop_through(uint64_t id);
  void arm_sample_timer();
  void on_sample_timer();

  RogueConnection& connection_;
  RogueConfig config_;
  Direction direction_;
  RogueStats& stats_;
  world::Scheduler& scheduler_;
  Vegas cc_;
  RogueRcRttEstimator rc_;
  RogueUcRttEstimator uc_;
  std::deque<Batch> batches_;  // in flight, oldest first; the last one may still be filling
  uint64_t next_id_ = 0;       // the estimators number batches 0, 1, 2, ...
  Time last_echo_;
  Time last_signal_at_;  // RC: when the last completion was handled (scheduler time)
  uint64_t in_flight_ = 0;
  std::optional<Rate> applied_;  // on the limiter (nullopt: unlimited)
  AppliedRateModel applied_model_;
  uint64_t posted_units_ = 0;   // units of every batch enqueued, in the limiter's count
  uint64_t holdoff_until_ = 0;  // bytes_through_limiter() before which samples are held off
  uint64_t read_bytes_ = 0;
  bool gated_ = false;  // UC: every sample lost; only a probe until one arrives
  world::TimerId sample_timer_;
  RandomStream noise_;  // RogueConfig::rtt_noise
};

}  // namespace bifrost::transport::rogue
