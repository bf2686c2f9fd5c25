// The sender's feedback side: send completions, software ACKs, loss detection, the
// retransmission timer and QP failover.
#include <algorithm>

#include "bifrost/transport/endpoint.h"
#include "sender.h"

namespace bifrost::transport {

namespace {

// Consecutive timeouts after which a UC connection gives up its primary QP's path (A.3).
constexpr uint32_t kTimeoutsBeforeFailover = 3;

}  // namespace

std::optional<uint64_t> Sender::resolve(const AckedWqe& entry) {
  if (entry.is_send) return entry.global;
  const WriteImm imm = imm_.decode(entry.write_imm);
  const uint64_t* number = message_of_write_.find(write_seq_of(imm.message_id));
  if (number == nullptr) return std::nullopt;
  const OutMessage& m = messages_.at(*number);
  if (imm.unit_offset >= m.chunk_global.size() || m.chunk_global[imm.unit_offset] == 0) {
    return std::nullopt;
  }
  return m.chunk_global[imm.unit_offset];
}

Sender::Cumulative Sender::cumulative_of(const SoftAck& ack) const {
  const WriteImm imm = imm_.decode(ack.write_cumulative);
  // The receiver's first unfinished message is at most the next one we number: extend its
  // low bits downwards from there.
  return Cumulative{
      .send_floor = ack.send_cumulative,
      .write_seq = next_write_seq_ - ((next_write_seq_ - imm.message_id) & imm_.message_id_mask()),
      .units = imm.unit_offset};
}

void Sender::acknowledge_cumulative(const Cumulative& cumulative, uint64_t& acked_bytes) {
  const auto take = [&](uint64_t global) {
    InFlight* wqe = window_.find(global);
    if (wqe == nullptr || wqe->done) return;
    ++stats_.cumulative_acked;
    acked_bytes += wqe->bytes;
    acknowledge(*wqe);
  };
  // SEND numbers wrap at 2^32; far fewer than 2^31 are ever outstanding.
  open_by_send_number_.advance(send_count_of(cumulative.send_floor), take);
  // WRITE messages before cumulative.write_seq have arrived whole, that one up to its units.
  while (cumulative_write_seq_ < cumulative.write_seq ||
         (cumulative_write_seq_ == cumulative.write_seq &&
          cumulative_write_units_ < cumulative.units)) {
    const bool whole = cumulative_write_seq_ < cumulative.write_seq;
    const uint64_t* number = message_of_write_.find(cumulative_write_seq_);
    const OutMessage* m = number != nullptr ? messages_.find(*number) : nullptr;
    const uint32_t limit = !whole
                               ? cumulative.units
                               : (m != nullptr ? static_cast<uint32_t>(m->unit_acked.size()) : 0);
    if (m != nullptr) {
      cumulative_write_units_ = acknowledge_write_units(
          cumulative_write_seq_, cumulative_write_units_, limit, acked_bytes);
    }
    if (!whole || (m != nullptr && cumulative_write_units_ < limit)) break;
    ++cumulative_write_seq_;
    cumulative_write_units_ = 0;
  }
}

uint32_t Sender::acknowledge_write_units(uint64_t write_seq, uint32_t from, uint32_t limit,
                                         uint64_t& acked_bytes) {
  uint32_t resume = limit;
  for (uint32_t u = from; u < limit; ++u) {
    // acknowledge() may finish the message: look it up again for each unit.
    const uint64_t* number = message_of_write_.find(write_seq);
    OutMessage* m = number != nullptr ? messages_.find(*number) : nullptr;
    if (m == nullptr) return limit;
    for (const uint64_t global : {m->chunk_global[u], m->piece_global[u]}) {
      InFlight* wqe = global != 0 ? window_.find(global) : nullptr;
      if (wqe == nullptr || wqe->done || wqe->unit != u) continue;
      if (wqe->unit + wqe->units > limit) {  // covered only in part: look again next time
        resume = std::min(resume, u);
        continue;
      }
      ++stats_.cumulative_acked;
      acked_bytes += wqe->bytes;
      acknowledge(*wqe);
    }
  }
  return resume;
}

std::optional<Time> Sender::add_rtt_sample(uint64_t posted_at, Time rtt) {
  rtt_.add(rtt);
  ++stats_.rtt_samples;
  if (rtt_observer_) rtt_observer_(rtt);
  if (posted_at < rtt_holdoff_until_) {
    ++stats_.rtt_samples_held_off;
    return std::nullopt;
  }
  return rtt;
}

void Sender::on_send_completion(const rnic::WorkCompletion& wc) {
  if (is_ack_wr(wc.wr_id)) {
    staging_.release(ack_slot_of(wc.wr_id));
    return;
  }
  InFlight* wqe = window_.find(wc.wr_id);
  if (wqe == nullptr || wqe->completed) return;
  const bool ok = wc.status == rnic::WcStatus::success;
  if (ok && !wqe->done) {
    // The retransmission clock runs from here, not from posting (see RtoClock::on_sent).
    rto_clock_.on_sent(scheduler_.now(), window_.open_sent_count() == 0);
    if (!wqe->out_since) wqe->out_since = scheduler_.now();
  }
  window_.complete(*wqe);
  wqe->t1 = wc.hw_timestamp;
  // The probe runs from when the tail left the NIC, not from posting: in the real world a WQE
  // can wait milliseconds in the soft NIC's send queue, which no RTT sample contains.
  if (wqe->hinted && !wqe->done) arm_tail_probe(wqe->global);
  release_posted(*wqe);
  if (config_.reliability == Reliability::hardware_rc && !wqe->done) {
    if (ok) {
      // RC: the NIC's completion is the acknowledgement; the RTT runs from posting to it.
      const std::optional<Time> rtt = add_rtt_sample(
          wqe->posted_at,
          rtt_sample(wc.sent_timestamp != Time::zero() ? wc.sent_timestamp : wqe->t1_posted,
                     wc.hw_timestamp, Time::zero()));
      rto_clock_.on_progress(scheduler_.now());
      cc_->on_ack(AckEvent{.now = scheduler_.now(), .acked_bytes = wqe->bytes, .rtt = rtt});
      acknowledge(*wqe);
    } else {
      // An RC one-sided operation the peer's memory refused: it ends here; the QP is in error
      // (as on a real NIC), so the rest still moves to a backup.
      if (wc.status == rnic::WcStatus::remote_access_error) {
        OutMessage* m = wqe->kind == Kind::reply ? nullptr : messages_.find(wqe->key);
        if (m != nullptr && m->op != Op::message) {
          end_operation(*m, SendStatus::remote_access_error);
        }
      }
      fail_over_rc(wc.qp_num);
    }
  } else if (!ok && !wqe->done) {
    declare_lost(*wqe);
  }
  window_.retire();
  arm_timer();
  pump();
}

void Sender::on_ack(const SoftAck& ack, Time ack_received_nic_time) {
  ++stats_.acks_received;
  if (ack_delay_observer_) {  // only when measured: reading the NIC clock has a modelled cost
    ack_delay_observer_(Time::ns(ack.ack_delay_ns),
                        endpoint_.clock().nic_now() - ack_received_nic_time);
  }
  uint64_t acked_bytes = 0;
  uint64_t newest = 0;
  std::optional<Time> sample;
  for (size_t i = 0; i < ack.count; ++i) {
    const auto global = resolve(ack.entries[i]);
    InFlight* wqe = global ? window_.find(*global) : nullptr;
    const bool stale = wqe == nullptr || wqe->done;
    if (global) tail_probe_.on_ack_entry(*global, !stale);
    const std::optional<LostVerdict> refuted =
        stale && global ? verdicts_.take(*global) : std::nullopt;
    if (wqe != nullptr || refuted)
      on_carrier_answered(wqe != nullptr ? wqe->qp_num : refuted->qp_num);
    if (stale) {
      ++stats_.stale_acks;
      if (refuted) {
        const std::optional<Time> late =
            on_refuted(*refuted, i == ack.timing_entry, ack, ack_received_nic_time);
        if (late) sample = late;
      }
      continue;
    }
    if (i == ack.timing_entry && wqe->completed) {
      sample = add_rtt_sample(
          wqe->posted_at, rtt_sample(wqe->t1, ack_received_nic_time, Time::ns(ack.ack_delay_ns)));
      if (wqe->hinted) tail_probe_.on_hinted_ack_delay(Time::ns(ack.ack_delay_ns));
    }
    acked_bytes += wqe->bytes;
    newest = std::max(newest, wqe->global);
    acknowledge(*wqe);
  }
  // The cumulative part names what earlier ACKs did: a WQE still open that it covers had its
  // ACK lost, and arrived.
  acknowledge_cumulative(cumulative_of(ack), acked_bytes);
  const Time now = scheduler_.now();
  tail_probe_.on_ack_end(acked_bytes > 0);  // new data acknowledged: the next tail may be probed
  if (acked_bytes > 0) rto_clock_.on_acked(now);
  // One path delivers a QP's WQEs in order: an older WQE not acknowledged by now is lost.
  bool lost = false;
  window_.for_each_open_between(lost_below_, newest, [&](InFlight& wqe) {
    declare_lost(wqe);
    ++stats_.losses_detected;
    loss_estimate_.on_lost();
    lost = true;
  });
  lost_below_ = std::max(lost_below_, newest);
  if (ack.ecn_echo) ++stats_.ecn_echoes;
  cc_->on_ack(AckEvent{.now = now, .acked_bytes = acked_bytes, .rtt = sample, .ecn = ack.ecn_echo});
  if (lost) cc_->on_loss(now);
  window_.retire();
  pump();
}

void Sender::acknowledge(InFlight& wqe) {
  if (failed_over_at_) {
    stats_.last_failover_gap = scheduler_.now() - *failed_over_at_;
    failed_over_at_.reset();
  }
  window_.settle(wqe);
  if (wqe.kind == Kind::reply) {
    if (Reply* g = replies_.find(wqe.key)) {
      g->acked = true;
      try_release_reply(wqe.key);
    }
    return;
  }
  OutMessage* found = messages_.find(wqe.key);
  if (found == nullptr) return;
  OutMessage& m = *found;
  switch (wqe.kind) {
    case Kind::message:
      m.acked = true;
      break;
    case Kind::request:       // the grant, not this ACK, moves the message on
    case Kind::notice:        // the chunks' ACKs complete the WRITE
    case Kind::read_request:  // the peer's read_done completes the READ
    case Kind::reply:
      break;
    case Kind::chunk:
    case Kind::piece:
    case Kind::read_chunk:
      for (uint32_t u = wqe.unit; u < wqe.unit + wqe.units; ++u) {
        if (m.unit_acked[u]) continue;
        m.unit_acked[u] = true;
        ++m.units_acked;
      }
      m.acked = m.units_acked == m.unit_acked.size();
      break;
  }
  try_finish(m);
}

void Sender::declare_lost(InFlight& wqe, uint64_t by_timeout) {
  window_.settle(wqe);
  rto_clock_.on_loss();
  if (config_.reliability == Reliability::software_uc && wqe.completed) {
    verdicts_.add(LostVerdict{.global = wqe.global,
                              .t1 = wqe.t1,
                              .posted_at = wqe.posted_at,
                              .qp_num = wqe.qp_num,
                              .timeout = by_timeout});
  }
  const OutMessage* m = wqe.kind == Kind::reply ? nullptr : messages_.find(wqe.key);
  const bool rc_one_sided =
      config_.reliability == Reliability::hardware_rc && m != nullptr && m->op != Op::message;
  if (wqe.kind != Kind::chunk || rc_one_sided) {
    retransmit_queue_.push_back(Retransmit{.kind = wqe.kind,
                                           .key = wqe.key,
                                           .unit = wqe.unit,
                                           .units = wqe.units,
                                           .send_number = wqe.send_number,
                                           .out_since = wqe.out_since});
    return;
  }
  // A lost chunk goes again as unit-sized SEND pieces (A.1.1): the receiver copies them into
  // place, so no retransmission writes memory the application may already own.
  for (uint32_t u = wqe.unit; u < wqe.unit + wqe.units; ++u) {
    retransmit_queue_.push_back(Retransmit{.kind = Kind::piece,
                                           .key = wqe.key,
                                           .unit = u,
                                           .send_number = std::nullopt,
                                           .out_since = wqe.out_since});
  }
}

void Sender::release_posted(const InFlight& wqe) {
  if (wqe.slot) staging_.release(*wqe.slot);
  if (wqe.kind == Kind::piece) return;  // its bytes were copied into the slot
  if (wqe.kind == Kind::reply) {
    Reply* g = replies_.find(wqe.key);
    if (g == nullptr) return;
    --g->posted_wqes;
    try_release_reply(wqe.key);
    return;
  }
  OutMessage* m = messages_.find(wqe.key);
  if (m == nullptr) return;
  --m->posted_wqes;
  if (wqe.kind == Kind::request) {
    --m->requests_in_nic;
    release_request_slot(*m);
  }
  try_finish(*m);
}

void Sender::release_request_slot(OutMessage& m) {
  if (!m.large || !m.granted || !m.slot || m.requests_in_nic > 0) return;
  staging_.release(*m.slot);
  m.slot.reset();
}

void Sender::try_finish(OutMessage& m) {
  if (!m.acked || m.posted_wqes > 0) return;
  if (m.slot) staging_.release(*m.slot);
  if (m.has_write_seq) message_of_write_.erase(m.write_seq);
  if (m.op == Op::read) reads_.erase(m.read_id);
  if (m.status != SendStatus::delivered) {
    ++stats_.one_sided_refused;
  } else if (m.op == Op::message) {
    ++stats_.messages_sent;
  } else {
    ++(m.op == Op::write ? stats_.writes_done : stats_.reads_done);
  }
  SendCallback done = std::move(m.done);
  const SendCompletion completion{
      .message = m.number, .status = m.status, .posted = m.posted, .completed = scheduler_.now()};
  messages_.erase(m.number);
  if (done) done(completion);
}

void Sender::try_release_reply(uint64_t id) {
  const Reply* reply = replies_.find(id);
  if (reply == nullptr || !reply->acked || reply->posted_wqes > 0) return;
  if (reply->slot) staging_.release(*reply->slot);
  replies_.erase(id);
}

// ---- timer and failover ----------------------------------------------------------------------

Time Sender::rto() const {
  return rto_clock_.rto(rtt_.rto(config_.min_rto));
}

void Sender::arm_timer() {
  // Over RC the NIC retransmits, and a WQE it cannot deliver ends in an error completion (retry
  // exhaustion), which fails over. A software timeout there would only misread slow progress
  // (a QP paused by PFC or paced by DCQCN) as loss: resend what the NIC still holds, and fail
  // over a healthy QP.
  if (config_.reliability == Reliability::hardware_rc) return;
  // Nothing on the wire, nothing to lose: the next send completion arms it.
  if (timer_.valid() || window_.open_sent_count() == 0) return;
  timer_ = scheduler_.at(rto_clock_.deadline(rtt_.rto(config_.min_rto)), [this] {
    timer_ = {};
    on_timer();
  });
}

void Sender::on_timer() {
  if (window_.open_sent_count() == 0) return;
  const Time now = scheduler_.now();
  if (!rto_clock_.expired(now, rtt_.rto(config_.min_rto))) {
    arm_timer();
    return;
  }
  ++stats_.timeouts;
  // A timeout says at least one packet was lost (the loss estimate counts one).
  loss_estimate_.on_lost();
  timeout_resend_due_ = declare_timed_out(now, rtt_.rto(config_.min_rto)) > 0;
  cc_->on_timeout(now);
  rto_clock_.on_timeout(now);
  // The path is given up only after timeouts with no ACK at all for anything the QP carried
  // (RtoClock::silent_timeouts): late ACKs of WQEs declared lost say it is queued, not dead.
  const uint32_t evidence = config_.failover_needs_silence ? rto_clock_.silent_timeouts()
                                                           : rto_clock_.timeouts_in_a_row();
  if (evidence % kTimeoutsBeforeFailover == 0 && evidence > 0 && connection_.has_primary()) {
    given_up_qp_ = connection_.primary().qp_num();
    rto_clock_.on_failover();
    count_failover(connection_.fail_over());
  }
  pump();
  arm_timer();
}

uint32_t Sender::declare_timed_out(Time now, Time age) {
  // Selective timeout retransmission (the paper's software SR, §3.4.2): only data that has
  // been out for a whole RTO without its ACK is presumed lost ("the silently dropped WQEs ...
  // are detected by timeout", A.1.2). Its age runs from when the data first left the NIC,
  // across its resends (a tail probe's copy of data out for long is as overdue as the data),
  // and is measured against the RTO without the backoff. Data out for less than an RTO is
  // left to its ACK; if it is missing, the ACK of the resend (a newer global number) reveals
  // it by the in-order rule, or the next timeout does. A WQE the NIC has not sent yet (queued
  // behind other QPs' WQEs: milliseconds under 64 busy QPs) cannot have been lost at all.
  uint32_t declared = 0;
  window_.for_each_open([&](InFlight& wqe) {
    if (wqe.completed && wqe.out_since && now - *wqe.out_since >= age) {
      declare_lost(wqe, stats_.timeouts);
      ++declared;
    } else {
      ++stats_.timeout_spared;
    }
  });
  return declared;
}

void Sender::on_carrier_answered(uint32_t qp_num) {
  if (connection_.has_primary() && connection_.primary().qp_num() == qp_num) {
    rto_clock_.on_answer();
  }
  if (given_up_qp_ == qp_num) {
    ++stats_.failovers_refuted;
    given_up_qp_.reset();
  }
}

std::optional<Time> Sender::on_refuted(const LostVerdict& verdict, bool timing_entry,
                                       const SoftAck& ack, Time ack_received_nic_time) {
  ++stats_.verdicts_refuted;
  if (verdict.timeout > last_refuted_timeout_) {
    ++stats_.spurious_timeouts;
    last_refuted_timeout_ = verdict.timeout;
  }
  if (!timing_entry || !config_.rtt_from_late_acks) return std::nullopt;
  // The transmission is unambiguous (A.1.1), so its late ACK measures the queue that made the
  // verdict wrong: without it srtt would never learn a queue longer than the RTO.
  return add_rtt_sample(verdict.posted_at,
                        rtt_sample(verdict.t1, ack_received_nic_time, Time::ns(ack.ack_delay_ns)));
}

void Sender::arm_tail_probe(uint64_t global) {
  // A WQE with the hint bit is acknowledged at once, so its ACK is due one round trip after it
  // left the NIC. If the last WQE of a burst (or its ACK) is lost, no later WQE reveals the gap
  // and only the RTO would; the probe declares the tail lost after 2 srtt + ack_timer instead
  // (tail loss probe). The ack_timer term covers what eq. (1) leaves out of srtt on purpose:
  // the time the receiver takes to get to the packet and post the ACK. Without an RTT sample
  // yet, the RTO covers it.
  if (!config_.tail_probe || config_.reliability != Reliability::software_uc ||
      !rtt_.has_sample()) {
    return;
  }
  // At most one probe until an ACK acknowledges new data unless a probe proved needed
  // (TailProbe: reliability/tail_probe.h).
  if (!tail_probe_.may_arm()) return;
  if (probe_.valid()) scheduler_.cancel(probe_);
  const Time delay = tail_probe_.delay(rtt_);
  probe_ = scheduler_.after(delay, [this, global] {
    probe_ = {};
    InFlight* tail = window_.find(global);
    if (tail == nullptr || tail->done) return;  // acknowledged (or already resent) in time
    ++stats_.tail_probes;
    tail_probe_.on_fired(global, window_.next());
    loss_estimate_.on_lost();
    // Only the tail goes again, as in TCP's tail loss probe: the ACK of the resend names it,
    // and the usual rule (an ACK names a WQE: every older unacknowledged one is lost) recovers
    // whatever else of the burst is missing without resending what arrived.
    declare_lost(*tail);
    cc_->on_loss(scheduler_.now());
    pump();
  });
}

void Sender::resend_in_flight() {
  // The receiver suppresses the ones it had already received (the race of A.2.1).
  window_.for_each_open([this](InFlight& wqe) { declare_lost(wqe); });
  cc_->on_loss(scheduler_.now());
}

void Sender::count_failover(bool promoted) {
  repace();
  if (promoted) ++stats_.failovers;
  failed_over_at_ = scheduler_.now();
  stats_.last_failover_at = scheduler_.now();
}

void Sender::fail_over_rc(uint32_t failed_qp) {
  // Every WQE not completed on the failed QP goes again on the new primary.
  resend_in_flight();
  if (!connection_.has_primary() || connection_.primary().qp_num() != failed_qp) return;
  const bool promoted = connection_.fail_over();
  if (promoted || connection_.reconnecting()) {
    count_failover(promoted);
  } else {
    fail_all();  // no backup left and no reconnect to wait for
  }
}

void Sender::on_primary_taken(bool promoted) {
  // A UC QP's WQEs that left already are acknowledged by software ACKs whatever QP carries
  // them; the ones it still held are flushed and resent from their completions. An RC QP's
  // WQEs are acknowledged by that QP only, which is gone.
  if (config_.reliability == Reliability::hardware_rc) resend_in_flight();
  count_failover(promoted);
  pump();
}

}  // namespace bifrost::transport
