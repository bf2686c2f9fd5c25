#include "batch_window.h"

#include <fmt/format.h>

#include "bifrost/core/error.h"
#include "bifrost/transport/rogue/rogue_connection.h"

namespace bifrost::transport::rogue {

BatchWindow::BatchWindow(RogueConnection& connection, const RogueConfig& config,
                         Direction direction, RogueStats& stats)
    : connection_(connection),
      config_(config),
      direction_(direction),
      stats_(stats),
      scheduler_(connection.endpoint().scheduler()),
      cc_(config.vegas_params()),
      rc_(config.rc_anchor_every > 0
              ? RogueRcRttEstimator(config.line_rate, config.rc_anchor_every, limiter_burst())
              : RogueRcRttEstimator(config.line_rate, config.rc_idle_start_floor)),
      uc_(config.line_rate),
      // The NIC's own change delay (the paper's H was its NICs'; a READ's limiter is the peer's,
      // taken to be the same kind of NIC).
      applied_model_(connection.endpoint().device().rate_limiter_config().change_delay.count(),
                     config.line_rate),
      noise_(connection.endpoint().config().seed,
             fmt::format("rogue-rtt-noise/{}/{}", connection.id(),
                         direction == Direction::read ? "read" : "write")) {}

BatchWindow::~BatchWindow() {
  if (sample_timer_.valid()) scheduler_.cancel(sample_timer_);
}

bool BatchWindow::may_post(uint64_t batch_bytes) const {
  if (gated_) return false;
  // RC anchor (rc_anchor_every): the batch that cuts the chain goes once none is outstanding.
  if (!uc() && rc_.anchor_due() && !batches_.empty()) return false;
  // At least min_batches enqueued while there is data (§3.1): below that, the window does not
  // hold a batch back, or the NIC would starve when cwnd < one batch.
  if (batches_.size() < config_.min_batches) return true;
  return in_flight_ + batch_bytes <= cc_.window_bytes();
}

std::optional<Time> BatchWindow::anchor_wait() const {
  if (uc() || !rc_.anchor_due() || !batches_.empty() || !applied_) return std::nullopt;
  // The limiter regains its burst credit and the pacing gap of its last packet: from the last
  // completion (its last byte left before) that long, at the rate in force.
  const Bytes frame(config_.mtu + kRoceV2MeteredHeaderBytes);
  const Time refill = serialization_time(limiter_burst() + frame, *applied_);
  const Time ready = last_signal_at_ + refill;
  if (scheduler_.now() >= ready) return std::nullopt;
  return ready;
}

Bytes BatchWindow::limiter_burst() const {
  return connection_.endpoint().device().rate_limiter_config().burst;
}

void BatchWindow::open_batch(Time t_enq) {
  Batch b;
  b.id = next_id_++;
  b.timing.t_enq = t_enq;
  b.timing.rate_limit = applied_.value_or(Rate::bps(0));
  b.sent_before = bytes_through_limiter();
  b.enqueued_at = scheduler_.now();
  // Its bytes go through the limiter after those already enqueued (or what else it metered).
  posted_units_ = std::max(posted_units_, b.sent_before);
  b.first_unit = posted_units_;
  batches_.push_back(b);
  ++stats_.batches;
}

void BatchWindow::add_bytes(uint64_t bytes, uint64_t wire_bytes, uint64_t packets) {
  Batch& b = batches_.back();
  b.bytes += bytes;
  b.timing.wire_bytes += wire_bytes;
  b.timing.packets += packets;
  in_flight_ += bytes;
  // READ data is counted as it arrives here, in payload bytes; WRITEs by the limiter, in wire.
  const uint64_t units = direction_ == Direction::read ? bytes : wire_bytes;
  b.units += units;
  posted_units_ += units;
}

void BatchWindow::close_batch() {
  const Batch& b = batches_.back();
  const uint64_t number = uc() ? uc_.on_enqueue(b.timing) : rc_.on_enqueue(b.timing);
  if (number != b.id) throw Error("rogue: batch {} numbered {} by its estimator", b.id, number);
  if (uc()) arm_sample_timer();
}

void BatchWindow::on_signal(uint64_t batch, Time at) {
  if (uc()) {
    uc_.on_send_completion(batch, at);  // t_sig; the sample comes with the echo
    return;
  }
  // RC completes in order: the signal is the oldest batch's.
  if (batches_.empty() || batches_.front().id != batch) return;
  const Batch b = batches_.front();
  batches_.pop_front();
  in_flight_ -= b.bytes;
  last_signal_at_ = scheduler_.now();
  if (held_off(b)) rc_.distrust_oldest();
  if (!config_.sample_applied_rate) {
    take_sample(b, rc_.on_completion(at));
    return;
  }
  const std::optional<Rate> applied = applied_model_.effective_rate(b.first_unit, b.units);
  applied_model_.forget_before(batches_.empty() ? posted_units_ : batches_.front().first_unit);
  take_sample(b, rc_.on_completion(at, applied.value_or(Rate::bps(0))));
}

void BatchWindow::on_echo(uint8_t sequence, Time response_time, Time arrival) {
  const RogueUcEcho echo = uc_.on_echo(sequence, arrival, response_time);
  if (!echo.batch) return;  // a late or repeated echo
  // Everything up to the echoed batch is resolved: earlier ones were lost.
  std::optional<Batch> answered;
  while (!batches_.empty() && batches_.front().id <= *echo.batch) {
    if (batches_.front().id == *echo.batch) answered = batches_.front();
    in_flight_ -= batches_.front().bytes;
    batches_.pop_front();
  }
  // Each CC update moves the rate by at most one step: put each on the limiter.
  for (uint32_t i = 0; i < echo.losses; ++i) {
    ++stats_.lost_echoes;
    cc_.on_loss(scheduler_.now());
    apply_rate();
  }
  gated_ = false;
  last_echo_ = scheduler_.now();
  if (answered && echo.rtt) {
    take_sample(*answered, *echo.rtt);
  } else {
    apply_rate();
  }
  arm_sample_timer();
}

TraceEvent BatchWindow::event(TraceEvent::Kind kind) const {
  TraceEvent e;
  e.kind = kind;
  e.read = direction_ == Direction::read;
  e.now = scheduler_.now();
  e.cwnd = cc_.window_bytes();
  e.batches_in_flight = batches_in_flight();
  e.gated = gated_;
  return e;
}

void BatchWindow::take_sample(const Batch& b, Time measured) {
  Time rtt = measured;
  if (config_.rtt_noise > Time::zero() && measured > Time::zero()) {
    rtt = rtt + Time::ps(static_cast<int64_t>(
                    noise_.uniform() * static_cast<double>(config_.rtt_noise.picoseconds())));
  }
  const bool held = held_off(b);
  if (held) {
    ++stats_.held_off_samples;
  } else if (rtt == Time::zero()) {
    // Clamped from below zero: the batch left faster than the limit it was corrected for (a
    // limiter's burst credit, a clock step). It says nothing about the path's delay, and as a
    // base RTT it would make every later sample look queued.
    ++stats_.discarded_samples;
  } else {
    ++stats_.rtt_samples;
    connection_.observe_rtt(rtt);
    cc_.on_ack(AckEvent{.now = scheduler_.now(), .acked_bytes = b.bytes, .rtt = rtt});
  }
  TraceEvent e = event(TraceEvent::Kind::sample);
  e.rtt = rtt;
  e.base_rtt = cc_.base_rtt();
  e.held_off = held;
  e.enqueued_at_bytes = b.sent_before;
  e.holdoff_until = holdoff_until_;
  connection_.trace(e);
  apply_rate();
}

void BatchWindow::apply_rate() {
  if (!config_.pace) return;
  const std::optional<Rate> rate = cc_.pacing_rate();
  if (rate == applied_) return;
  TraceEvent e = event(TraceEvent::Kind::rate);
  e.old_rate = applied_;
  e.new_rate = rate;
  connection_.trace(e);
  applied_ = rate;
  if (config_.sample_applied_rate) applied_model_.on_request(bytes_through_limiter(), rate);
  ++stats_.rate_updates;
  holdoff_until_ = bytes_through_limiter() + config_.holdoff_bytes;
  if (direction_ == Direction::write) {
    connection_.endpoint().device().set_rate_limit(connection_.active_qp(),
                                                   rate.value_or(Rate::bps(0)));
  } else {
    connection_.ask_peer_rate(rate.value_or(Rate::bps(0)));
  }
}

void BatchWindow::reapply_rate() {
  if (!config_.pace || !applied_) return;
  if (direction_ == Direction::write) {
    connection_.endpoint().device().set_rate_limit(connection_.active_qp(), *applied_);
  } else {
    connection_.ask_peer_rate(*applied_);
  }
}

uint64_t BatchWindow::bytes_through_limiter() const {
  // READ data leaves the peer's limiter: what has arrived here is our count of it.
  if (direction_ == Direction::read) return read_bytes_;
  const rnic::RateLimiter* limiter =
      connection_.endpoint().device().rate_limiter(connection_.active_qp());
  return limiter != nullptr ? limiter->transmitted().count() : 0;
}

void BatchWindow::forget_batches() {
  batches_.clear();
  in_flight_ = 0;
  rc_.restart();
}

void BatchWindow::arm_sample_timer() {
  if (sample_timer_.valid() || batches_.empty()) return;
  const Time due = std::max(last_echo_, batches_.front().enqueued_at) + config_.uc_sample_timeout;
  sample_timer_ = scheduler_.at(std::max(due, scheduler_.now()), [this] {
    sample_timer_ = {};
    on_sample_timer();
  });
}

void BatchWindow::on_sample_timer() {
  if (batches_.empty()) return;
  const Time due = std::max(last_echo_, batches_.front().enqueued_at) + config_.uc_sample_timeout;
  if (scheduler_.now() < due) {
    arm_sample_timer();
    return;
  }
  // Every outstanding sample is lost (§3.4): the initial window, and nothing new goes until a
  // probe's echo gives a sample.
  uc_.abandon_outstanding();
  batches_.clear();
  in_flight_ = 0;
  ++stats_.sample_timeouts;
  cc_.on_timeout(scheduler_.now());
  apply_rate();
  gated_ = true;
  last_echo_ = scheduler_.now();
  connection_.post_probe();
}

}  // namespace bifrost::transport::rogue
