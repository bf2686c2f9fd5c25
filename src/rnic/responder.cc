#include "bifrost/rnic/responder.h"

#include <algorithm>
#include <utility>

#include "bifrost/core/error.h"
#include "bifrost/rnic/host_memory.h"
#include "bifrost/rnic/packet_kind.h"
#include "bifrost/rnic/queue_pair.h"
#include "bifrost/wire/headers.h"

namespace bifrost::rnic {
Responder::Responder(QueuePair& qp, NicContext& nic)
    : qp_(qp), nic_(nic), engine_(nic.recovery().make_responder()) {}

Responder::~Responder() {
  nic_.scheduler().cancel(ack_timer_);  // a destroyed QP must not be called back
}

void Responder::post(const RecvWr& wr) {
  const QpState state = qp_.state();
  if (state == QpState::reset) {
    throw Error("QP {}: post_recv needs INIT, RTR or RTS; the QP is in RESET", qp_.qp_num());
  }
  if (state == QpState::err) {
    qp_.recv_cq().push(make_completion(wr.wr_id, WcStatus::flush_error, WcOpcode::recv, 0,
                                       std::nullopt, qp_.qp_num(), nic_.hw_time()));
    return;
  }
  if (rq_.size() >= nic_.data_path().max_recv_wr) {
    throw Error("QP {}: the receive queue is full ({} work requests)", qp_.qp_num(),
                nic_.data_path().max_recv_wr);
  }
  RecvSlot slot{wr, nullptr};
  if (wr.sge.length > 0) {
    const AccessResult r = nic_.memory().check_local(qp_.pd(), wr.sge.lkey, wr.sge.addr,
                                                     wr.sge.length, Access::local_write);
    if (r != AccessResult::ok) {
      throw Error("QP {}: receive buffer [{:#x}, +{}) with lkey {:#x} is not writable: {}",
                  qp_.qp_num(), wr.sge.addr, wr.sge.length, wr.sge.lkey, to_string(r));
    }
    slot.mr = nic_.memory().find_by_lkey(wr.sge.lkey);
  }
  rq_.push_back(slot);
}

void Responder::start(uint32_t rq_psn) {
  epsn_ = pipeline_epsn_ = rq_psn & wire::kPsnMask;
}

Time Responder::pipeline_stall(const world::Packet& packet) {
  if (qp_.type() != QpType::rc || !nic_.recovery().stalls_pipeline()) return Time::zero();
  // ACKs and READ responses belong to the requester's PSN space, not to this bitmap.
  const PacketKind kind = packet_kind(packet.roce.bth.opcode);
  if (kind.operation == Operation::acknowledge || kind.operation == Operation::read_response) {
    return Time::zero();
  }
  // The pipeline is FIFO, so what a packet finds when it is processed is decided by the
  // packets admitted before it: a second engine state tracks the receive state as of the
  // pipeline's tail (epsn_ lags while packets wait in the pipeline).
  if (!pipeline_view_) pipeline_view_ = nic_.recovery().make_responder();
  const uint32_t psn = packet.roce.bth.psn;
  const Time stall = pipeline_view_->pipeline_stall(psn, pipeline_epsn_);
  const uint32_t span = kind.operation == Operation::read_request
                            ? read_response_count(packet.roce.reth.dma_length, qp_.query().path_mtu)
                            : 1;
  switch (pipeline_view_->classify(psn, pipeline_epsn_, span)) {
    case recovery::Arrival::in_order:
      pipeline_epsn_ = pipeline_view_->advance(pipeline_epsn_, span);
      break;
    case recovery::Arrival::out_of_order:
      pipeline_view_->record(psn, span);
      break;
    default:
      break;
  }
  return stall;
}

void Responder::receive(const world::Packet& packet) {
  const QpState state = qp_.state();
  if (state != QpState::rtr && state != QpState::rts && state != QpState::sqd) {
    ++nic_.counters().rx_bad_state;
    return;
  }
  // Any CE mark counts, also on a duplicate or a dropped packet: it is congestion on the path
  // all the same, as the NIC's notification point treats it.
  if (packet.ecn == 3) ce_seen_ = true;
  switch (qp_.type()) {
    case QpType::rc:
      receive_rc(packet);
      break;
    case QpType::uc:
      receive_uc(packet);
      break;
    case QpType::ud:
      receive_ud(packet);
      break;
  }
}

void Responder::receive_rc(const world::Packet& packet) {
  using recovery::Arrival;
  const uint32_t psn = packet.roce.bth.psn;
  const PacketKind kind = packet_kind(packet.roce.bth.opcode);
  const uint32_t mtu = qp_.query().path_mtu;
  const uint32_t span = kind.operation == Operation::read_request
                            ? read_response_count(packet.roce.reth.dma_length, mtu)
                            : 1;
  const Arrival arrival = engine_->classify(psn, epsn_, span);
  auto& counters = nic_.counters();
  if (arrival == Arrival::duplicate) {
    ++counters.rx_duplicates;
    // A duplicate READ is executed again: its responses were lost.
    if (kind.operation == Operation::read_request) {
      execute_read(packet);
    } else {
      send_ack(wire::make_ack(msn_), wire::psn_add(epsn_, wire::kPsnMask));
    }
    return;
  }
  if (arrival == Arrival::drop) {
    ++counters.rx_dropped_sequence;
    const recovery::Feedback feedback = engine_->feedback(arrival);
    if (feedback == recovery::Feedback::nak_sequence) {
      ++counters.naks_sent;
      send_ack(wire::make_nak(msn_, wire::NakCode::kPsnSequenceError), epsn_);
    } else if (feedback == recovery::Feedback::fnack) {
      // FaSR's FNACK: a SACK-shaped NAK whose SR extension says a retransmission was lost.
      ++counters.fnacks_sent;
      wire::FasrSackInfo info = wire::decode_fasr_info(engine_->sack_info());
      info.fnack = true;
      send_ack(wire::make_nak(msn_, wire::NakCode::kPsnSequenceError), epsn_, psn,
               wire::encode_fasr_info(info));
    }
    return;
  }
  // Under go-back-N READ responses imply that every earlier request arrived (the requester
  // completes them on it), so a READ runs only in order. The selective engines acknowledge
  // every READ request instead (R-READ), so a READ ahead of a gap runs at once and is SACKed.
  const bool read = kind.operation == Operation::read_request;
  if (arrival == Arrival::out_of_order && read && !nic_.recovery().selective()) {
    ++counters.rx_dropped_sequence;
    return;
  }
  const bool selective = packet.roce.sr.present;
  const Outcome outcome = execute(packet, selective);
  if (outcome != Outcome::ok) {
    refuse(outcome, arrival == Arrival::in_order, psn);
    return;
  }
  if (arrival == Arrival::out_of_order) {
    ++counters.rx_out_of_order;
    engine_->record(psn, span);
    if (engine_->feedback(arrival) == recovery::Feedback::sack) {
      ++counters.sacks_sent;
      send_ack(wire::make_nak(msn_, wire::NakCode::kPsnSequenceError), epsn_, psn,
               engine_->sack_info());
    }
    return;
  }
  const uint32_t next = engine_->advance(epsn_, span);
  const bool jumped = next != wire::psn_add(epsn_, span);
  epsn_ = next;
  if (kind.ends_message()) msn_ = (msn_ + 1) & wire::kPsnMask;
  complete_pending();
  // Under go-back-N the responses acknowledge a READ, but not the PSNs after it that had
  // arrived out of order: a jump past them needs an ACK (it follows the responses). The
  // selective engines ACK every READ request, behind its responses.
  if (read && !jumped && !nic_.recovery().selective()) return;
  const uint32_t every = nic_.data_path().ack_every_packets;
  ++since_ack_;
  if (packet.roce.bth.ack_request || jumped || read || (every != 0 && since_ack_ >= every)) {
    send_ack(wire::make_ack(msn_), wire::psn_add(epsn_, wire::kPsnMask));
  } else {
    defer_ack();
  }
}

void Responder::defer_ack() {
  const Time delay = nic_.data_path().ack_delay;
  if (delay <= Time::zero()) return;
  if (since_ack_ == 1) unacked_since_ = nic_.scheduler().now();
  // One timer per QP: an earlier ACK leaves it pending, and it re-arms from the oldest packet
  // still waiting when it fires.
  if (!ack_timer_.valid()) {
    ack_timer_ = nic_.scheduler().at(unacked_since_ + delay, [this] { on_ack_timer(); });
  }
}

void Responder::on_ack_timer() {
  ack_timer_ = {};
  if (since_ack_ == 0 || qp_.state() == QpState::err || qp_.state() == QpState::reset) return;
  const Time due = unacked_since_ + nic_.data_path().ack_delay;
  if (nic_.scheduler().now() < due) {
    ack_timer_ = nic_.scheduler().at(due, [this] { on_ack_timer(); });
    return;
  }
  ++nic_.counters().delayed_acks;
  send_ack(wire::make_ack(msn_), wire::psn_add(epsn_, wire::kPsnMask));
}

void Responder::refuse(Outcome outcome, bool in_order, uint32_t psn) {
  auto& counters = nic_.counters();
  if (outcome == Outcome::rnr) {
    // Out of order it is simply dropped: it comes again, in order, and is RNR NAKed then.
    if (!in_order) return;
    ++counters.rnr_naks_sent;
    send_ack(wire::make_rnr_nak(msn_, qp_.query().min_rnr_timer), psn);
    return;
  }
  // Every packet carries its message's whole range, so an access error is final wherever it
  // arrives; other errors are judged when the packet's turn comes.
  if (outcome != Outcome::access_error && !in_order) return;
  if (outcome == Outcome::access_error) {
    ++counters.access_naks_sent;
    send_nak(wire::NakCode::kRemoteAccessError, psn);
  } else {
    send_nak(wire::NakCode::kInvalidRequest, psn);
  }
  // The receive a too-long SEND was to use completes in error (every earlier one has).
  if (outcome == Outcome::length_error && !rq_.empty()) {
    complete_receive(
        Pending{psn, rq_base_ssn_, 0, std::nullopt, WcOpcode::recv, WcStatus::local_length_error});
  }
  // Like rxe's class C errors: the responder QP goes to ERR after its NAK.
  qp_.enter_error();
}

Responder::Outcome Responder::execute(const world::Packet& packet, bool selective) {
  switch (packet_kind(packet.roce.bth.opcode).operation) {
    case Operation::read_request:
      return execute_read(packet);
    case Operation::write:
      return execute_write(packet, selective);
    case Operation::send:
      return execute_send(packet, selective);
    default:
      return Outcome::invalid_request;
  }
}

AccessResult Responder::check_remote(uint32_t rkey, uint64_t va, uint64_t length,
                                     Access wanted) const {
  if (!allows(qp_.query().access_flags, wanted)) return AccessResult::access_denied;
  // A zero-length RDMA WRITE or READ touches no memory: the IB spec has the responder skip the
  // R_Key check for it (RoGUE's echoes and ib_write_lat -s 0 rely on it).
  if (length == 0) return AccessResult::ok;
  return nic_.memory().check_remote(qp_.pd(), rkey, va, length, wanted);
}

void Responder::place(const MemoryRegion* mr, uint64_t va, const world::Payload& payload) {
  if (payload.length > 0 && mr != nullptr && mr->memory != nullptr) mr->memory->write(va, payload);
}

Responder::Outcome Responder::execute_read(const world::Packet& packet) {
  const wire::Reth& reth = packet.roce.reth;
  if (check_remote(reth.rkey, reth.virtual_address, reth.dma_length, Access::remote_read) !=
      AccessResult::ok) {
    return Outcome::access_error;
  }
  ReadJob job;
  job.psn = packet.roce.bth.psn;
  job.count = read_response_count(reth.dma_length, qp_.query().path_mtu);
  job.va = reth.virtual_address;
  job.length = reth.dma_length;
  job.mr = nic_.memory().find_by_rkey(reth.rkey);
  // A READ asked again from a PSN inside one still queued, up to its end, rewinds it there, as
  // on hardware: the old stream would only repeat what the requester is about to get again.
  // A re-request of a hole (the selective engines' R-READ) leaves the stream going and is
  // answered first.
  const uint32_t end = wire::psn_add(job.psn, job.count);
  bool hole = false;
  std::erase_if(reads_, [&](const ReadJob& queued) {
    const int32_t offset = wire::psn_diff(job.psn, queued.psn);
    if (queued.ack || offset < 0 || offset >= static_cast<int32_t>(queued.count)) return false;
    if (wire::psn_diff(end, wire::psn_add(queued.psn, queued.count)) >= 0) return true;
    hole = true;
    return false;
  });
  if (hole) {
    reads_.push_front(job);
  } else {
    reads_.push_back(job);
  }
  nic_.wake(qp_);
  return Outcome::ok;
}

Responder::Outcome Responder::execute_write(const world::Packet& packet, bool selective) {
  const PacketKind kind = packet_kind(packet.roce.bth.opcode);
  const uint32_t length = packet.payload.length;
  uint64_t va = 0;
  uint32_t rkey = 0;
  if (selective) {
    // Every packet carries its message's range: the whole message is checked each time, so
    // no packet of a message that may not be written is placed, whatever arrives first.
    const wire::SrExtension& sr = packet.roce.sr;
    if (check_remote(sr.key, sr.address, sr.length, Access::remote_write) != AccessResult::ok ||
        uint64_t{sr.offset} + length > sr.length) {
      return Outcome::access_error;
    }
    va = sr.address + sr.offset;
    rkey = sr.key;
  } else if (kind.starts_message()) {
    const wire::Reth& reth = packet.roce.reth;
    if (check_remote(reth.rkey, reth.virtual_address, reth.dma_length, Access::remote_write) !=
            AccessResult::ok ||
        length > reth.dma_length) {
      message_.active = false;
      return Outcome::access_error;
    }
    message_ = Message{true, reth.virtual_address, reth.rkey, 0, 0};
    va = reth.virtual_address;
    rkey = reth.rkey;
  } else {
    if (!message_.active) return Outcome::invalid_request;
    va = message_.va + message_.offset;
    rkey = message_.rkey;
    // The RETH checked the whole message; a longer message than it announced is refused.
    if (check_remote(rkey, va, length, Access::remote_write) != AccessResult::ok) {
      return Outcome::access_error;
    }
  }
  uint32_t ssn = selective ? packet.roce.sr.sequence : next_ssn_;
  if (kind.immediate && receive_slot(ssn) == nullptr) return Outcome::rnr;
  place(nic_.memory().find_by_rkey(rkey), va, packet.payload);
  uint64_t total = packet.roce.sr.length;
  if (!selective) {
    message_.offset += length;
    total = message_.offset;
  }
  if (kind.ends_message()) {
    message_.active = false;
    if (kind.immediate) {
      if (!selective) ++next_ssn_;
      add_pending(Pending{packet.roce.bth.psn, ssn, static_cast<uint32_t>(total),
                          packet.roce.immediate, WcOpcode::recv_rdma_with_imm, WcStatus::success});
    }
  }
  return Outcome::ok;
}

Responder::Outcome Responder::execute_send(const world::Packet& packet, bool selective) {
  const PacketKind kind = packet_kind(packet.roce.bth.opcode);
  uint32_t ssn = 0;
  uint64_t offset = 0;
  if (selective) {
    ssn = packet.roce.sr.sequence;
    offset = packet.roce.sr.offset;
  } else if (kind.starts_message()) {
    ssn = next_ssn_;
  } else {
    if (!message_.active) return Outcome::invalid_request;
    ssn = message_.ssn;
    offset = message_.offset;
  }
  RecvSlot* slot = receive_slot(ssn);
  if (slot == nullptr) return Outcome::rnr;
  const uint32_t length = packet.payload.length;
  if (offset + length > slot->wr.sge.length) {
    message_.active = false;
    return Outcome::length_error;
  }
  place(slot->mr, slot->wr.sge.addr + offset, packet.payload);
  if (!selective) message_ = Message{true, 0, 0, ssn, offset + length};
  if (kind.ends_message()) {
    message_.active = false;
    if (!selective) ++next_ssn_;
    add_pending(
        Pending{packet.roce.bth.psn, ssn, static_cast<uint32_t>(offset + length),
                kind.immediate ? std::optional<uint32_t>(packet.roce.immediate) : std::nullopt,
                WcOpcode::recv, WcStatus::success});
  }
  return Outcome::ok;
}

Responder::RecvSlot* Responder::receive_slot(uint32_t ssn) {
  const uint32_t index = ssn - rq_base_ssn_;
  return index < rq_.size() ? &rq_[index] : nullptr;
}

void Responder::add_pending(const Pending& pending) {
  // Usually the newest; out-of-order arrivals insert by PSN.
  auto it = pending_.end();
  while (it != pending_.begin() && wire::psn_before(pending.last_psn, std::prev(it)->last_psn))
    --it;
  pending_.insert(it, pending);
}

void Responder::complete_pending() {
  while (!pending_.empty() && wire::psn_before(pending_.front().last_psn, epsn_)) {
    Pending p = pending_.front();
    pending_.pop_front();
    complete_receive(p);
  }
}

void Responder::complete_receive(const Pending& pending, uint32_t src_qp, world::Ipv4 src_ip) {
  if (rq_.empty()) return;
  const RecvSlot slot = rq_.front();
  rq_.pop_front();
  ++rq_base_ssn_;
  WorkCompletion wc = make_completion(slot.wr.wr_id, pending.status, pending.opcode,
                                      pending.byte_len, pending.imm, qp_.qp_num(), nic_.hw_time());
  wc.src_qp = src_qp;
  wc.src_ip = src_ip;
  wc.ecn_ce = std::exchange(ce_seen_, false);
  qp_.recv_cq().push(wc);
  if (pending.status != WcStatus::success && qp_.type() == QpType::rc) qp_.enter_error();
}

void Responder::receive_uc(const world::Packet& packet) {
  const PacketKind kind = packet_kind(packet.roce.bth.opcode);
  const uint32_t psn = packet.roce.bth.psn;
  auto& counters = nic_.counters();
  if (psn != epsn_) ++counters.rx_uc_out_of_sequence;
  // Any FIRST or ONLY starts a message whatever its PSN, as real NICs and rxe do: a late or
  // duplicated message is placed again. A gap inside a message drops the rest of it.
  if (kind.starts_message()) {
    if (message_.active) ++counters.rx_uc_messages_dropped;
    message_.active = false;
    epsn_ = psn;
  } else if (!message_.active || psn != epsn_) {
    if (message_.active) ++counters.rx_uc_messages_dropped;
    message_.active = false;
    ++counters.rx_dropped_sequence;
    return;
  }
  epsn_ = wire::psn_add(psn, 1);
  const Outcome outcome = kind.operation == Operation::write ? execute_write(packet, false)
                                                             : execute_send(packet, false);
  // UC never NAKs: a refused message is lost, and a receive it would have used stays posted,
  // except that one too long for its receive completes it with local_length_error.
  if (outcome != Outcome::ok) {
    ++counters.rx_uc_messages_dropped;
    message_.active = false;
    if (outcome == Outcome::length_error && !rq_.empty()) {
      complete_receive(Pending{psn, rq_base_ssn_, 0, std::nullopt, WcOpcode::recv,
                               WcStatus::local_length_error});
      ++next_ssn_;
    }
  }
  complete_pending();
}

void Responder::receive_ud(const world::Packet& packet) {
  auto& counters = nic_.counters();
  if (packet.roce.deth.qkey != qp_.query().qkey) {
    ++counters.rx_qkey_mismatch;
    return;
  }
  if (rq_.empty()) {
    ++counters.rx_ud_no_receive;
    return;
  }
  const RecvSlot& slot = rq_.front();
  const uint32_t length = packet.payload.length;
  const PacketKind kind = packet_kind(packet.roce.bth.opcode);
  Pending p{0,
            rq_base_ssn_,
            kGrhBytes + length,
            kind.immediate ? std::optional<uint32_t>(packet.roce.immediate) : std::nullopt,
            WcOpcode::recv,
            WcStatus::success};
  if (kGrhBytes + length > slot.wr.sge.length) {
    p.status = WcStatus::local_length_error;
    p.byte_len = 0;
  } else {
    place(slot.mr, slot.wr.sge.addr + kGrhBytes, packet.payload);
  }
  complete_receive(p, packet.roce.deth.src_qp, packet.src.ip);
}

bool Responder::produce(world::Packet& out) {
  // ACKs queued behind READs go once the responses before them have.
  const auto release_acks = [this] {
    while (!reads_.empty() && reads_.front().ack) {
      const wire::RoceHeaders h = *reads_.front().ack;
      reads_.pop_front();
      nic_.send_ack(qp_, h);
    }
  };
  release_acks();
  if (reads_.empty() || qp_.state() == QpState::err) return false;
  ReadJob& job = reads_.front();
  const uint32_t mtu = qp_.query().path_mtu;
  const uint32_t i = job.sent++;
  const bool first = i == 0;
  const bool last = i + 1 == job.count;
  using wire::Opcode;
  out.roce.bth.opcode = job.count == 1 ? Opcode::kRcReadResponseOnly
                        : first        ? Opcode::kRcReadResponseFirst
                        : last         ? Opcode::kRcReadResponseLast
                                       : Opcode::kRcReadResponseMiddle;
  out.roce.bth.dest_qp = qp_.query().dest_qp_num;
  out.roce.bth.psn = wire::psn_add(job.psn, i);
  if (first || last) out.roce.aeth = wire::make_ack(msn_);
  const uint64_t offset = uint64_t{i} * mtu;
  const auto length = static_cast<uint32_t>(std::min<uint64_t>(job.length - offset, mtu));
  out.roce.bth.pad_count = static_cast<uint8_t>((4 - (length & 3)) & 3);
  out.payload.length = length;
  if (length > 0 && job.mr != nullptr && job.mr->memory != nullptr) {
    read_payload(*job.mr->memory, job.va + offset, length, nic_.data_path().zero_copy_transmit,
                 out.payload);
  }
  qp_.address(out, qp_.query().av.dest_ip);
  if (last) {
    reads_.pop_front();
    release_acks();
  }
  return true;
}

void Responder::send_ack(wire::Aeth aeth, uint32_t psn, std::optional<uint32_t> sacked,
                         uint32_t sack_info) {
  wire::RoceHeaders h;
  h.bth.opcode = wire::Opcode::kRcAcknowledge;
  h.bth.dest_qp = qp_.query().dest_qp_num;
  h.bth.psn = psn & wire::kPsnMask;
  h.aeth = aeth;
  h.sr.lean = nic_.recovery().lean_sr_header();
  if (sacked) {
    h.sr.present = true;
    h.sr.sequence = *sacked;
    h.sr.key = sack_info;
  } else if (wire::ack_kind(aeth) == wire::AckKind::kAck) {
    // FaSR's AACK: an ACK carries lost-cnt while the receiver is in loss recovery.
    if (const auto info = engine_->ack_info()) {
      h.sr.present = true;
      h.sr.key = *info;
    }
  }
  since_ack_ = 0;
  if (!reads_.empty()) {
    ReadJob queued;
    queued.ack = h;
    reads_.push_back(queued);
    return;
  }
  nic_.send_ack(qp_, h);
}

void Responder::send_nak(wire::NakCode code, uint32_t psn) {
  send_ack(wire::make_nak(msn_, code), psn);
}

void Responder::flush() {
  for (const RecvSlot& slot : rq_) {
    qp_.recv_cq().push(make_completion(slot.wr.wr_id, WcStatus::flush_error, WcOpcode::recv, 0,
                                       std::nullopt, qp_.qp_num(), nic_.hw_time()));
  }
  rq_.clear();
  pending_.clear();
  reads_.clear();
  message_ = {};
}

void Responder::reset() {
  rq_.clear();
  pending_.clear();
  reads_.clear();
  message_ = {};
  engine_ = nic_.recovery().make_responder();
  pipeline_view_.reset();
  rq_base_ssn_ = next_ssn_ = 0;
  epsn_ = pipeline_epsn_ = msn_ = since_ack_ = 0;
  nic_.scheduler().cancel(ack_timer_);
  ack_timer_ = {};
  ce_seen_ = false;
}

}  // namespace bifrost::rnic
