#include "bifrost/rnic/requester.h"

#include <algorithm>
#include <utility>

#include "bifrost/core/error.h"
#include "bifrost/rnic/host_memory.h"
#include "bifrost/rnic/queue_pair.h"
#include "bifrost/wire/headers.h"

namespace bifrost::rnic {
namespace {

bool is_write(WrOpcode op) {
  return op == WrOpcode::rdma_write || op == WrOpcode::rdma_write_with_imm;
}

SendWqe wqe_of(const SendWr& wr) {
  return SendWqe{wr.opcode, wr.sge.length, wr.remote_addr, wr.rkey, wr.imm, wr.solicited};
}

WcStatus status_of(wire::NakCode code) {
  switch (code) {
    case wire::NakCode::kPsnSequenceError:
      break;
    case wire::NakCode::kInvalidRequest:
      return WcStatus::remote_invalid_request;
    case wire::NakCode::kRemoteAccessError:
      return WcStatus::remote_access_error;
    case wire::NakCode::kRemoteOperationalError:
      return WcStatus::remote_operation_error;
  }
  return WcStatus::remote_operation_error;
}

// The IB RNR timer encoding (table 45) in microseconds, index 0 meaning 655.36 ms.
Time rnr_delay(uint8_t code) {
  static constexpr double kMicros[32] = {
      655360, 10,    20,    30,    40,    60,     80,     120,    160,    240,   320,
      480,    640,   960,   1280,  1920,  2560,   3840,   5120,   7680,   10240, 15360,
      20480,  30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520};
  return Time::ns(static_cast<int64_t>(kMicros[code & 31] * 1000));
}

}  // namespace

Requester::Requester(QueuePair& qp, NicContext& nic)
    : qp_(qp), nic_(nic), engine_(nic.recovery().make_requester()) {}

Requester::~Requester() {
  nic_.scheduler().cancel(timer_);
  nic_.scheduler().cancel(rnr_timer_);  // a destroyed QP must not be woken
}

void Requester::post(const SendWr& wr) {
  const QpState state = qp_.state();
  if (state == QpState::err) {
    qp_.send_cq().push(make_completion(wr.wr_id, WcStatus::flush_error,
                                       send_completion_opcode(wr.opcode), 0, std::nullopt,
                                       qp_.qp_num(), nic_.hw_time()));
    return;
  }
  if (state != QpState::rts) {
    throw Error("QP {}: post_send needs the RTS state, the QP is in {}", qp_.qp_num(),
                to_string(state));
  }
  if (sq_.size() >= nic_.data_path().max_send_wr) {
    throw Error("QP {}: the send queue is full ({} work requests); poll completions first",
                qp_.qp_num(), nic_.data_path().max_send_wr);
  }
  const uint32_t mtu = qp_.query().path_mtu;
  check_wqe(qp_.type(), wqe_of(wr), mtu);
  Slot slot;
  slot.wr = wr;
  const Access wanted = is_read(wr) ? Access::local_write : Access::none;
  const AccessResult local =
      wr.sge.length == 0
          ? AccessResult::ok
          : nic_.memory().check_local(qp_.pd(), wr.sge.lkey, wr.sge.addr, wr.sge.length, wanted);
  slot.mr = wr.sge.length == 0 ? nullptr : nic_.memory().find_by_lkey(wr.sge.lkey);
  slot.first_psn = psn_end_;
  slot.span =
      is_read(wr) ? read_response_count(wr.sge.length, mtu) : request_packet_count(wqe_of(wr), mtu);
  slot.consumes_receive = wr.opcode == WrOpcode::send || wr.opcode == WrOpcode::send_with_imm ||
                          wr.opcode == WrOpcode::rdma_write_with_imm;
  if (slot.consumes_receive) slot.ssn = next_ssn_++;
  psn_end_ = wire::psn_add(psn_end_, slot.span);
  sq_.push_back(slot);
  if (local != AccessResult::ok) {
    // Hardware fails the request when it reaches it; everything outstanding is flushed.
    fail(WcStatus::local_protection_error, sq_.size() - 1);
    return;
  }
  nic_.wake(qp_);
}

void Requester::start(uint32_t sq_psn) {
  una_ = snd_max_ = psn_end_ = acked_ = sq_psn & wire::kPsnMask;
  retries_left_ = qp_.query().retry_cnt;
  rnr_retries_left_ = qp_.query().rnr_retry;
}

Requester::Slot* Requester::find_slot(uint32_t psn) {
  if (sq_.empty()) return nullptr;
  const auto contains = [psn](const Slot& s) {
    const int32_t d = wire::psn_diff(psn, s.first_psn);
    return d >= 0 && d < static_cast<int32_t>(s.span);
  };
  // Packets are produced slot after slot: try the slot found last, and the one after it.
  for (size_t i = hint_; i < sq_.size() && i < hint_ + 2; ++i) {
    if (contains(sq_[i])) {
      hint_ = i;
      return &sq_[i];
    }
  }
  const uint32_t base = sq_.front().first_psn;
  const int32_t offset = wire::psn_diff(psn, base);
  if (offset < 0) return nullptr;
  // Slots are in PSN order: binary search on the distance from the first slot.
  auto it = std::upper_bound(sq_.begin(), sq_.end(), offset, [base](int32_t off, const Slot& s) {
    return off < wire::psn_diff(s.first_psn, base);
  });
  if (it == sq_.begin()) return nullptr;
  --it;
  if (!contains(*it)) return nullptr;
  hint_ = static_cast<size_t>(it - sq_.begin());
  return &*it;
}

uint32_t Requester::in_flight() const {
  return static_cast<uint32_t>(wire::psn_diff(snd_max_, una_));
}

bool Requester::produce(world::Packet& out) {
  if (qp_.state() != QpState::rts || sq_.empty()) return false;
  if (qp_.type() != QpType::rc) {
    Slot& slot = sq_.front();
    const uint32_t psn = snd_max_;
    build(slot, psn, out);
    snd_max_ = wire::psn_add(snd_max_, 1);
    una_ = snd_max_;
    // UC/UD: the request is complete once its last packet leaves the NIC.
    if (wire::psn_diff(snd_max_, slot.first_psn) >= static_cast<int32_t>(slot.span)) {
      complete_front(/*sent=*/true);
    }
    return true;
  }
  if (nic_.scheduler().now() < rnr_until_) return false;
  // The QP has its transmit turn: a timeout's resend, if any, leaves now (see on_timer).
  if (std::exchange(awaiting_turn_, false)) progress_at_ = nic_.scheduler().now();
  if (read_resend_ && produce_read_repair(out)) return true;
  if (waiting_for_retransmitted_verb()) return false;
  while (const auto psn = engine_->next_retransmission(una_, snd_max_)) {
    Slot* slot = find_slot(*psn);
    if (slot == nullptr || wire::psn_before(*psn, una_)) continue;
    // A READ is re-requested from its first missing response: to its end under go-back-N, to
    // the next response that arrived under selective repeat.
    if (is_read(slot->wr) && *psn != wire::psn_add(slot->first_psn, slot->read_received)) continue;
    const auto hole = is_read(slot->wr) && nic_.recovery().selective()
                          ? next_read_hole(*slot, slot->read_received, true)
                          : std::nullopt;
    build(*slot, *psn, out, hole ? hole->count : 0);
    note_retransmission(*slot, *psn);
    ++retransmitted_;
    ++nic_.counters().tx_retransmitted;
    arm_timer();
    return true;
  }
  if (!wire::psn_before(snd_max_, psn_end_) || !engine_->may_send_new(in_flight())) return false;
  Slot* slot = find_slot(snd_max_);
  if (slot == nullptr) return false;
  build(*slot, snd_max_, out);
  if (!is_read(slot->wr) &&
      wire::psn_diff(snd_max_, slot->first_psn) + 1 == static_cast<int32_t>(slot->span)) {
    nic_.note_last_packet(qp_, snd_max_);
  }
  snd_max_ = wire::psn_add(snd_max_, is_read(slot->wr) ? slot->span : 1);
  // The window is now full: ask for an ACK with this packet. The responder otherwise ACKs every
  // few packets or at a message's end, and a window smaller than that would leave both ends
  // waiting for the retransmission timeout.
  if (!is_read(slot->wr) && !engine_->may_send_new(in_flight())) out.roce.bth.ack_request = true;
  arm_timer();
  return true;
}

void Requester::build(const Slot& slot, uint32_t psn, world::Packet& out, uint32_t read_responses) {
  const uint32_t mtu = qp_.query().path_mtu;
  const uint32_t dest_qp = qp_.type() == QpType::ud ? slot.wr.ud.qp_num : qp_.query().dest_qp_num;
  const auto index = static_cast<uint32_t>(wire::psn_diff(psn, slot.first_psn));
  SendWqe wqe = wqe_of(slot.wr);
  SegmentedPacket p;
  if (is_read(slot.wr)) {
    // A READ resent from response `index` asks only for what is still missing.
    const uint64_t skip = uint64_t{index} * mtu;
    wqe.length -= skip;
    wqe.remote_addr += skip;
    if (read_responses > 0) {
      wqe.length =
          static_cast<uint32_t>(std::min<uint64_t>(wqe.length, uint64_t{read_responses} * mtu));
    }
    p = segment_packet(qp_.type(), wqe, mtu, psn, dest_qp, 0);
  } else {
    p = segment_packet(qp_.type(), wqe, mtu, slot.first_psn, dest_qp, index);
  }
  out.roce = p.headers;
  if (qp_.type() == QpType::ud) {
    out.roce.deth.qkey = slot.wr.ud.qkey;
    out.roce.deth.src_qp = qp_.qp_num();
  }
  if (qp_.type() == QpType::rc && nic_.recovery().selective() && !is_read(slot.wr)) {
    wire::SrExtension& sr = out.roce.sr;
    sr.present = true;
    sr.lean = nic_.recovery().lean_sr_header();
    const bool write = is_write(slot.wr.opcode);
    sr.address = write ? slot.wr.remote_addr : 0;
    sr.key = write ? slot.wr.rkey : 0;
    sr.length = slot.wr.sge.length;
    sr.sequence = slot.consumes_receive ? slot.ssn : kNoReceiveSequence;
    sr.offset = static_cast<uint32_t>(p.payload_offset);
  }
  out.payload.length = p.payload_length;
  if (p.payload_length > 0 && slot.mr != nullptr && slot.mr->memory != nullptr) {
    read_payload(*slot.mr->memory, slot.wr.sge.addr + p.payload_offset, p.payload_length,
                 nic_.data_path().zero_copy_transmit, out.payload);
  }
  if (qp_.type() == QpType::ud) {
    qp_.address(out, slot.wr.ud.ip);
    out.dscp = slot.wr.ud.traffic_class >> 2;  // the address handle's class, not the QP's
  } else {
    qp_.address(out, qp_.query().av.dest_ip);
  }
}

Time Requester::pipeline_stall(const world::Packet& packet) {
  if (qp_.type() != QpType::rc || !nic_.recovery().stalls_pipeline()) return Time::zero();
  const wire::Aeth& aeth = packet.roce.aeth;
  const bool sack =
      packet.roce.bth.opcode == wire::Opcode::kRcAcknowledge &&
      wire::ack_kind(aeth) == wire::AckKind::kNak &&
      static_cast<wire::NakCode>(wire::syndrome_value(aeth)) == wire::NakCode::kPsnSequenceError &&
      packet.roce.sr.present;
  if (!sack) return Time::zero();
  if (!pipeline_view_) pipeline_view_ = nic_.recovery().make_requester();
  return pipeline_view_->sack_stall(packet.roce.bth.psn, packet.roce.sr.sequence);
}

void Requester::receive(const world::Packet& packet) {
  if (qp_.type() != QpType::rc || qp_.state() == QpState::err || qp_.state() == QpState::reset) {
    return;
  }
  const wire::Opcode op = packet.roce.bth.opcode;
  if (op != wire::Opcode::kRcAcknowledge) {
    on_read_response(packet);
    return;
  }
  const uint32_t psn = packet.roce.bth.psn;
  const wire::Aeth& aeth = packet.roce.aeth;
  switch (wire::ack_kind(aeth)) {
    case wire::AckKind::kAck:
      acknowledge_to(wire::psn_add(psn, 1));
      if (packet.roce.sr.present) {
        // FaSR's AACK: the receiver's lost-cnt, after the ACK moved una.
        const wire::FasrSackInfo info = wire::decode_fasr_info(packet.roce.sr.key);
        engine_->on_aack(info.lost_cnt, info.overflow);
      }
      break;
    case wire::AckKind::kRnrNak:
      acknowledge_to(psn);
      if (qp_.query().rnr_retry != 7) {
        if (rnr_retries_left_ == 0) {
          fail(WcStatus::rnr_retry_exceeded, 0);
          return;
        }
        --rnr_retries_left_;
      }
      rnr_until_ = nic_.scheduler().now() + rnr_delay(wire::syndrome_value(aeth));
      // An RNR NAK is a response: the transport retry count and timer start over, counted
      // from the end of the RNR wait (rnr_retry alone limits how often it may repeat).
      retries_left_ = qp_.query().retry_cnt;
      progress_at_ = rnr_until_;
      engine_->on_nak(psn, snd_max_);
      retransmitted_verb_end_.reset();
      nic_.scheduler().cancel(rnr_timer_);
      rnr_timer_ = nic_.scheduler().at(rnr_until_, [this] {
        rnr_timer_ = {};
        nic_.wake(qp_);
      });
      break;
    case wire::AckKind::kNak: {
      const auto code = static_cast<wire::NakCode>(wire::syndrome_value(aeth));
      acknowledge_to(psn);
      if (code != wire::NakCode::kPsnSequenceError) {
        fail(status_of(code), 0);
        return;
      }
      // The resend starts again inside the waiting verb and sets the wait when it ends.
      retransmitted_verb_end_.reset();
      if (packet.roce.sr.present) {
        const wire::FasrSackInfo info = wire::decode_fasr_info(packet.roce.sr.key);
        if (info.fnack) {
          // FaSR: a retransmission was lost; the engine may time out early.
          ++nic_.counters().fnacks_received;
          engine_->on_fnack(wire::psn_before(una_, acked_) ? acked_ : una_, snd_max_);
          nic_.wake(qp_);
          break;
        }
        engine_->on_sack_state(info.lost_cnt, info.overflow);
        // The cumulative part may pass an unfinished READ that holds una back: the requests
        // after the READ did arrive, and the engine must not resend them.
        engine_->on_sack(wire::psn_before(una_, acked_) ? acked_ : una_, packet.roce.sr.sequence,
                         snd_max_);
      } else {
        engine_->on_nak(una_, snd_max_);
      }
      nic_.wake(qp_);
      break;
    }
    case wire::AckKind::kReserved:
      break;
  }
}

bool Requester::acknowledge_to(uint32_t target) {
  if (!wire::psn_before(una_, target) || wire::psn_before(snd_max_, target)) return false;
  if (wire::psn_before(acked_, target)) acked_ = target;
  uint32_t new_una = target;
  bool implied_nak = false;
  while (!sq_.empty()) {
    Slot& s = sq_.front();
    if (is_read(s.wr)) {
      const uint32_t limit = wire::psn_add(s.first_psn, s.read_received);
      // Under selective repeat a READ's responses may all be in before it reaches the front.
      if (s.read_received == s.span && !wire::psn_before(new_una, limit)) {
        complete_front();
        continue;
      }
      // An ACK beyond a READ whose responses did not all arrive means they were lost.
      if (wire::psn_before(limit, new_una)) {
        new_una = limit;
        implied_nak = true;
      }
      break;
    }
    if (wire::psn_before(new_una, wire::psn_add(s.first_psn, s.span))) break;
    complete_front();
  }
  const bool moved = wire::psn_before(una_, new_una);
  if (moved) {
    una_ = new_una;
    engine_->on_ack(una_);
    after_progress();
  }
  if (implied_nak && !read_gap_reported_) report_read_gap();
  return moved;
}

void Requester::report_read_gap() {
  read_gap_reported_ = true;
  // Selective repeat asks again only for the READ's missing responses: the requests after it
  // are the engine's business (SACKed, ACKed or timed out), and resending them all would be
  // going back N. GBN goes back to the READ, as hardware does. The responder has gone past the
  // READ, so responses missing at its end are lost too.
  if (nic_.recovery().selective()) {
    read_resend_ = true;
    read_tail_lost_ = true;
  } else if (nic_.data_path().read_gap_waits_for_timeout) {
    return;  // the responses after the gap are dropped; the QP timer asks again
  } else {
    engine_->on_nak(una_, snd_max_);
  }
  nic_.wake(qp_);
}

void Requester::departed(uint32_t psn, Time when) {
  Slot* slot = find_slot(psn);
  if (slot != nullptr && slot->departed == Time::zero()) slot->departed = when;
}

void Requester::complete_front(bool sent) {
  const Slot& s = sq_.front();
  if (s.wr.signaled) {
    WorkCompletion wc =
        make_completion(s.wr.wr_id, WcStatus::success, send_completion_opcode(s.wr.opcode),
                        s.wr.sge.length, std::nullopt, qp_.qp_num(), nic_.hw_time());
    wc.sent_timestamp = s.departed;
    if (sent) {
      nic_.complete_sent(qp_.send_cq(), wc);
    } else {
      qp_.send_cq().push(wc);
    }
  }
  sq_.pop_front();
  if (hint_ > 0) --hint_;
}

void Requester::fail(WcStatus status, size_t culprit) {
  for (size_t i = 0; i < sq_.size(); ++i) {
    const Slot& s = sq_[i];
    qp_.send_cq().push(make_completion(s.wr.wr_id, i == culprit ? status : WcStatus::flush_error,
                                       send_completion_opcode(s.wr.opcode), 0, std::nullopt,
                                       qp_.qp_num(), nic_.hw_time()));
  }
  sq_.clear();
  qp_.enter_error();
}

void Requester::flush() {
  fail(WcStatus::flush_error, sq_.size());
}

void Requester::reset() {
  sq_.clear();
  nic_.scheduler().cancel(timer_);
  nic_.scheduler().cancel(rnr_timer_);
  timer_ = rnr_timer_ = {};
  progress_at_ = Time::max();
  awaiting_turn_ = false;
  retransmitted_verb_end_.reset();
  engine_ = nic_.recovery().make_requester();
  una_ = snd_max_ = psn_end_ = acked_ = 0;
  next_ssn_ = 0;
  read_gap_reported_ = false;
  read_resend_ = false;
  read_tail_lost_ = false;
  rnr_until_ = Time::zero();
}

bool Requester::waiting_for_retransmitted_verb() {
  if (!retransmitted_verb_end_) return false;
  if (wire::psn_before(una_, *retransmitted_verb_end_)) return true;
  retransmitted_verb_end_.reset();  // acknowledged: later verbs may go
  return false;
}

void Requester::note_retransmission(const Slot& slot, uint32_t psn) {
  if (!nic_.data_path().serialize_verbs_after_retransmission) return;
  const uint32_t end = wire::psn_add(slot.first_psn, slot.span);
  // A READ request is one packet that asks for the rest of the READ.
  if (is_read(slot.wr) || wire::psn_add(psn, 1) == end) retransmitted_verb_end_ = end;
}

void Requester::after_progress() {
  retries_left_ = qp_.query().retry_cnt;
  rnr_retries_left_ = qp_.query().rnr_retry;
  awaiting_turn_ = false;
  if (in_flight() == 0) {
    // Nothing outstanding: the timer stops (a stale one would only keep the clock going).
    nic_.scheduler().cancel(timer_);
    timer_ = {};
    progress_at_ = Time::max();
  } else {
    progress_at_ = nic_.scheduler().now();
    arm_timer();
  }
  nic_.wake(qp_);
}

Time Requester::timeout() const {
  const uint8_t t = qp_.query().timeout;
  const Time qp_timeout = t == 0 ? Time::max() : Time::ns(4096) * (int64_t{1} << t);
  return engine_->timeout(in_flight(), qp_timeout);
}

void Requester::arm_timer() {
  if (in_flight() == 0) return;
  const Time rto = timeout();
  if (rto == Time::max()) return;
  // The clock starts with the first packet after a quiet spell (a pending timer may be left
  // from before it) and restarts with every progress.
  if (progress_at_ == Time::max()) progress_at_ = nic_.scheduler().now();
  if (!timer_.valid()) timer_ = nic_.scheduler().at(progress_at_ + rto, [this] { on_timer(); });
}

void Requester::on_timer() {
  timer_ = {};
  if (qp_.state() != QpState::rts || in_flight() == 0) {
    progress_at_ = Time::max();
    return;
  }
  const Time now = nic_.scheduler().now();
  // The timeout is evaluated now, for what is in flight now: progress since the timer was set,
  // or more packets in flight (IRN's RTO_high replacing RTO_low), may have moved it.
  const Time due = progress_at_ + timeout();
  if (now < due) {
    timer_ = nic_.scheduler().at(due, [this] { on_timer(); });
    return;
  }
  if (awaiting_turn_) {
    // The last expiry's resend has not left yet: the QP is still waiting for its turn in this
    // NIC's transmit scheduler or for its rate limiter (thousands of QPs on one port, DCQCN).
    // The transport timer runs from a request's transmission, so no retry is spent meanwhile.
    progress_at_ = now;
    arm_timer();
    return;
  }
  ++nic_.counters().timeouts;
  if (retries_left_ == 0) {
    fail(WcStatus::retry_exceeded, 0);
    return;
  }
  nic_.on_retransmission_timeout(qp_);
  --retries_left_;
  retransmitted_verb_end_.reset();  // the resend from una_ sets it again (its ACK was lost)
  read_gap_reported_ = false;
  // Re-requests of a READ's holes may have been lost too: after a timeout every hole counts.
  if (Slot* slot = find_slot(una_); slot != nullptr && is_read(slot->wr)) {
    slot->read_asked_to = slot->read_received;
  }
  if (nic_.recovery().selective() && wire::psn_before(una_, acked_)) {
    // An unfinished READ holds una back while the requests after it are acknowledged: ask
    // for the READ's missing responses again, the holes already asked for too, and time out
    // only what follows the acknowledgement.
    read_resend_ = true;
    read_tail_lost_ = true;
    engine_->on_timeout(acked_, snd_max_);
  } else {
    engine_->on_timeout(una_, snd_max_);
  }
  progress_at_ = now;
  awaiting_turn_ = true;
  arm_timer();
  nic_.wake(qp_);
}

}  // namespace bifrost::rnic
