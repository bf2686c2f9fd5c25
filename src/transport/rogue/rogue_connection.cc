// The send side of a RoGUE connection: segmentation, batching, posting and completions.
// Shadow takeover is in rogue_shadow.cc, the per-direction windows in batch_window.cc and the
// receive side in rogue_receiver.cc.
#include "bifrost/transport/rogue/rogue_connection.h"

#include <algorithm>

#include "batch_window.h"
#include "bifrost/core/error.h"
#include "bifrost/rnic/connect.h"
#include "bifrost/transport/rtt/rogue_batch.h"
#include "bifrost/transport/wire/rogue_imm.h"
#include "rogue_receiver.h"

namespace bifrost::transport::rogue {

RogueConnection::RogueConnection(Endpoint& endpoint, const RogueConfig& config)
    : endpoint_(endpoint),
      config_(config),
      resync_(*this, endpoint.scheduler(), resync_stats_, config.resync_interval,
              config.resync_attempts) {
  config_.validate();
  rnic::Device& device = endpoint_.device();
  if (device.rate_limiter_bank_size() > 0) {
    limiter_ = device.claim_limiter();
    if (!limiter_) {
      throw Error(
          "rogue: all {} of the NIC's per-priority rate limiters are taken; RoGUE gives each "
          "active QP one of its own, so at most {} connections per NIC",
          device.rate_limiter_bank_size(), device.rate_limiter_bank_size());
    }
  }
  id_ = endpoint_.add_handler(*this);
  paths_.push_back(fresh_path(PathRole::primary));
  if (config_.qp_type == QpType::rc && config_.shadow_qp) {
    paths_.push_back(fresh_path(PathRole::shadow));
  }
  write_window_ =
      std::make_unique<BatchWindow>(*this, config_, BatchWindow::Direction::write, stats_);
  if (config_.qp_type == QpType::rc) {
    read_window_ =
        std::make_unique<BatchWindow>(*this, config_, BatchWindow::Direction::read, stats_);
  }
  receiver_ = std::make_unique<RogueReceiver>(*this, config_, stats_);
  resync_.resize(paths_.size());
}

RogueConnection::~RogueConnection() {
  if (cpu_wake_.valid()) endpoint_.scheduler().cancel(cpu_wake_);
  endpoint_.remove_handler(id_);
  if (limiter_) endpoint_.device().release_limiter(*limiter_);
}

Path RogueConnection::fresh_path(PathRole role) {
  const rnic::QpType type = config_.qp_type == QpType::rc ? rnic::QpType::rc : rnic::QpType::uc;
  rnic::QueuePair& qp =
      endpoint_.device().create_qp(endpoint_.pd(), type, endpoint_.data_cq(), endpoint_.data_cq());
  endpoint_.register_qp(qp.qp_num(), *this);
  if (limiter_) endpoint_.device().assign_limiter(qp, *limiter_);  // a shadow shares it
  return Path{.qp = &qp,
              .role = role,
              .first_psn = endpoint_.fresh_psn(),
              .source_port = endpoint_.fresh_source_port(),
              .gid_index = std::nullopt};
}

ConnectionOffer RogueConnection::offer() const {
  ConnectionOffer o;
  o.ip = endpoint_.ip();
  o.ud_qpn = endpoint_.ud_qpn();
  o.qkey = endpoint_.config().qkey;
  o.connection_id = id_;
  // The QP type, in the offer's terms: RC QPs or UC QPs.
  o.reliability =
      config_.qp_type == QpType::rc ? Reliability::hardware_rc : Reliability::software_uc;
  o.mtu = config_.mtu;
  for (const Path& p : paths_) {
    o.qps.push_back(ConnectionOffer::Qp{.qpn = p.qp->qp_num(), .first_psn = p.first_psn});
  }
  return o;
}

void RogueConnection::connect_path(size_t index) {
  endpoint_.connect_path(paths_[index], *peer_, index, config_.mtu, config_.rc_timeout,
                         config_.rc_retry_cnt);
}

void RogueConnection::connect(const ConnectionOffer& peer) {
  if (peer_) throw Error("rogue connection {} is already connected", id_);
  const Reliability mine = offer().reliability;
  if (peer.reliability != mine) throw Error("rogue connect: the peer uses the other QP type");
  if (peer.qps.size() != paths_.size()) {
    throw Error("rogue connect: the peer offers {} QPs, this connection has {}", peer.qps.size(),
                paths_.size());
  }
  peer_ = std::make_unique<ConnectionOffer>(peer);
  for (size_t i = 0; i < paths_.size(); ++i) connect_path(i);
  receiver_->start();
  schedule_pump();
}

rnic::QueuePair& RogueConnection::active_qp() {
  for (Path& p : paths_) {
    if (p.role == PathRole::primary) return *p.qp;
  }
  throw Error("rogue connection {} has no active QP", id_);
}

void RogueConnection::post(const Work& work) {
  const uint64_t length = work.local.length;
  if (length == 0 || length > config_.max_verb_bytes) {
    throw Error("rogue post: {} bytes; verbs are 1 .. {} bytes", length, config_.max_verb_bytes);
  }
  if (work.local.region == nullptr) throw Error("rogue post: the buffer has no memory region");
  if (work.op == Op::read && config_.qp_type == QpType::uc) {
    throw Error("rogue post: UC has no READ");
  }
  if (work.op == Op::send && length > config_.max_send_bytes) {
    throw Error("rogue post: a SEND of {} bytes; SENDs go whole, at most max_send_bytes = {}",
                length, config_.max_send_bytes);
  }
  if (config_.qp_type == QpType::uc && work.imm && is_rogue_imm(*work.imm)) {
    throw Error("rogue post: over UC an immediate must have bit 31 clear (RoGUE's own)");
  }
  verbs_.push_back(Verb{.work = work, .sequence = next_verb_++});
  ++stats_.verbs_posted;
  schedule_pump();
}

void RogueConnection::post_recv(uint64_t wr_id, const MessageBuffer& buffer) {
  receiver_->post_app_receive(wr_id, buffer);
}

void RogueConnection::set_receive_handler(ReceiveHandler handler) {
  receiver_->set_handler(std::move(handler));
}

bool RogueConnection::idle() const {
  return verbs_.empty() && posted_.empty() && write_window_->idle() &&
         (!read_window_ || read_window_->idle());
}

uint64_t RogueConnection::write_window() const {
  return write_window_->window_bytes();
}
uint64_t RogueConnection::read_window() const {
  return read_window_ ? read_window_->window_bytes() : 0;
}
std::optional<Rate> RogueConnection::write_rate() const {
  return write_window_->rate();
}

BatchWindow& RogueConnection::window_of(Op op) {
  return op == Op::read ? *read_window_ : *write_window_;
}

RogueConnection::Verb* RogueConnection::find_verb(uint64_t sequence) {
  if (verbs_.empty() || sequence < verbs_.front().sequence) return nullptr;
  const uint64_t index = sequence - verbs_.front().sequence;
  return index < verbs_.size() ? &verbs_[index] : nullptr;
}

void RogueConnection::schedule_pump() {
  // Verbs posted in one turn are batched together: the pump runs on the next turn.
  if (pump_scheduled_ || !connected()) return;
  pump_scheduled_ = true;
  endpoint_.scheduler().at(endpoint_.scheduler().now(), [this] {
    pump_scheduled_ = false;
    pump();
  });
}

void RogueConnection::pump() {
  while (post_batch()) {
  }
  if (!trace_) return;
  const auto next = std::find_if(verbs_.begin(), verbs_.end(),
                                 [](const Verb& v) { return v.cut < v.work.local.length; });
  for (const BatchWindow* w : {write_window_.get(), read_window_.get()}) {
    if (w == nullptr) continue;
    TraceEvent e = w->event(TraceEvent::Kind::pumped);
    e.data_pending = next != verbs_.end() && (next->work.op == Op::read) == e.read;
    e.recovering = !path_with_role(PathRole::primary).has_value();
    e.host_busy = cpu_.busy(endpoint_.scheduler().now()) || clock_read_.has_value();
    trace(e);
  }
}

uint64_t RogueConnection::next_segment(const Verb& v) const {
  const uint64_t left = v.work.local.length - v.cut;
  return v.work.op == Op::send ? left : std::min(left, config_.segment());
}

bool RogueConnection::post_batch() {
  // Nothing goes while no QP is ready (the shadow failed before the resync finished).
  if (!path_with_role(PathRole::primary)) return false;
  // The first verb not yet cut whole.
  auto it = std::find_if(verbs_.begin(), verbs_.end(),
                         [](const Verb& v) { return v.cut < v.work.local.length; });
  if (it == verbs_.end()) return false;
  BatchWindow& window = window_of(it->work.op);
  if (const std::optional<Time> ready = window.anchor_wait()) {
    wake_at(*ready);
    return false;
  }
  if (!window.may_post(config_.batch())) return false;
  // The QP's send queue holds max_send_wr WQEs until their completion retires them: small
  // signaled verbs are a batch each, and a window of thousands of them would overflow it.
  // Two places stay free: the segment that closes a batch, and a UC echo request behind it.
  const size_t send_queue = endpoint_.device().data_path().max_send_wr;
  const auto queue_full_after = [&](size_t more) {
    return posted_.size() + more + 2 >= send_queue;
  };
  if (queue_full_after(0)) return false;
  const std::optional<Time> t_enq = batch_clock();
  if (!t_enq) return false;
  window.open_batch(*t_enq);
  uint64_t bytes = 0;
  for (;;) {
    Verb& v = *it;
    const uint64_t length = next_segment(v);
    const bool last_of_verb = v.cut + length == v.work.local.length;
    const auto next = last_of_verb ? std::next(it) : it;
    const bool more_of_class =
        next != verbs_.end() && (next->work.op == Op::read) == (v.work.op == Op::read);
    const bool closes = bytes + length >= config_.batch() || (last_of_verb && v.work.signaled) ||
                        !more_of_class || queue_full_after(1);
    post_segment(v, length, closes);
    bytes += length;
    if (closes) break;
    it = next;
  }
  window.close_batch();
  return true;
}

std::optional<Time> RogueConnection::batch_clock() {
  const Time now = endpoint_.scheduler().now();
  // A read that has returned: the batch it was for goes now (the signals handled meanwhile
  // wait behind it). One that returned earlier and found nothing to post is stale.
  if (clock_read_ && clock_read_->ready_at == now) {
    const Time value = clock_read_->value;
    clock_read_.reset();
    return value;
  }
  if (clock_read_ && clock_read_->ready_at < now) clock_read_.reset();
  if (cpu_.busy(now)) {
    wake_at(cpu_.free_at());
    return std::nullopt;
  }
  if (config_.clock_read_cost == Time::zero()) return read_nic_clock();
  // The read carries the NIC's time when it was issued; the thread waits for it to return.
  const Time value = read_nic_clock();
  charge(config_.clock_read_cost);
  clock_read_ = ClockRead{.value = value, .ready_at = cpu_.free_at()};
  wake_at(clock_read_->ready_at);
  return std::nullopt;
}

Time RogueConnection::read_nic_clock() {
  ++stats_.clock_reads;
  return endpoint_.device().hw_time();
}

void RogueConnection::charge_signal() {
  if (config_.signal_cost == Time::zero()) return;
  ++stats_.signals_charged;
  charge(config_.signal_cost);
}

void RogueConnection::charge(Time cost) {
  cpu_.charge(endpoint_.scheduler().now(), cost);
  stats_.modelled_cpu_ns = static_cast<uint64_t>(cpu_.charged().picoseconds() / 1000);
}

void RogueConnection::wake_at(Time when) {
  if (cpu_wake_.valid() && cpu_wake_at_ <= when) return;  // an earlier wake-up looks again
  if (cpu_wake_.valid()) endpoint_.scheduler().cancel(cpu_wake_);
  cpu_wake_at_ = when;
  cpu_wake_ = endpoint_.scheduler().at(when, [this] {
    cpu_wake_ = {};
    pump();
  });
}

rnic::SendWr RogueConnection::segment_wr(const Verb& v, uint64_t offset, uint64_t length,
                                         bool signaled, std::optional<uint32_t> imm) const {
  const Work& w = v.work;
  rnic::SendWr wr;
  wr.sge = rnic::Sge{.addr = w.local.addr + offset,
                     .length = static_cast<uint32_t>(length),
                     .lkey = w.local.region->lkey};
  wr.remote_addr = w.remote.addr + offset;
  wr.rkey = w.remote.rkey;
  wr.signaled = signaled;
  switch (w.op) {
    case Op::write:
      wr.opcode = imm ? rnic::WrOpcode::rdma_write_with_imm : rnic::WrOpcode::rdma_write;
      break;
    case Op::send:
      wr.opcode = imm ? rnic::WrOpcode::send_with_imm : rnic::WrOpcode::send;
      break;
    case Op::read:
      wr.opcode = rnic::WrOpcode::rdma_read;
      break;
  }
  if (imm) wr.imm = *imm;
  return wr;
}

void RogueConnection::post_segment(Verb& v, uint64_t length, bool closes_batch) {
  const Work& w = v.work;
  const uint64_t offset = v.cut;
  const bool last_of_verb = offset + length == w.local.length;
  BatchWindow& window = window_of(w.op);
  const uint64_t batch = window.current_batch();
  // UC: the batch's last verb asks the peer's library for an echo in its immediate; if it
  // carries the application's immediate, a zero-length WRITE_WITH_IMM right behind it asks.
  const bool app_imm = last_of_verb && w.imm.has_value();
  const bool uc_close = config_.qp_type == QpType::uc && closes_batch;
  const std::optional<uint32_t> imm =
      app_imm ? w.imm
              : (uc_close ? std::optional(encode_echo_request(static_cast<uint8_t>(batch)))
                          : std::nullopt);
  const rnic::SendWr wr =
      segment_wr(v, offset, length, closes_batch || (last_of_verb && w.signaled), imm);
  const bool tag_behind = uc_close && app_imm;
  post_wqe(wr, Segment{.bytes = length,
                       .verb = v.sequence,
                       .offset = offset,
                       .last_of_verb = last_of_verb,
                       .closes_batch = closes_batch && !tag_behind,
                       .read = w.op == Op::read,
                       .consumes_receive = w.op == Op::send || app_imm,
                       .batch = batch});
  v.cut += length;
  ++v.segments_open;
  const rnic::QpType type = config_.qp_type == QpType::rc ? rnic::QpType::rc : rnic::QpType::uc;
  window.add_bytes(length, verb_wire_bytes(type, wr.opcode, length, config_.mtu),
                   verb_packets(wr.opcode, length, config_.mtu));
  if (tag_behind) post_tag(batch);
}

void RogueConnection::post_probe() {
  write_window_->open_batch(read_nic_clock());  // after a sample timeout: not delayed
  ++stats_.probes;
  post_tag(write_window_->current_batch());
  write_window_->close_batch();
}

void RogueConnection::ask_peer_rate(Rate rate) {
  size_t index = 0;
  while (paths_[index].role != PathRole::primary) ++index;
  ControlMessage m{.connection = peer_->connection_id,
                   .kind = ControlKind::set_rate,
                   .qp_index = static_cast<uint16_t>(index),
                   .value = static_cast<uint64_t>(rate.bits_per_second())};
  endpoint_.post_control(*peer_, m);
}

void RogueConnection::post_tag(uint64_t batch) {
  rnic::SendWr wr;
  wr.opcode = rnic::WrOpcode::rdma_write_with_imm;
  wr.imm = encode_echo_request(static_cast<uint8_t>(batch));
  wr.signaled = true;
  post_wqe(wr, Segment{.closes_batch = true, .tag_only = true, .batch = batch});
}

void RogueConnection::post_wqe(const rnic::SendWr& wr, const Segment& segment) {
  rnic::SendWr numbered = wr;
  numbered.wr_id = next_wr_id_++;
  Segment s = segment;
  s.wr_id = numbered.wr_id;
  posted_.post(s);
  active_qp().post_send(numbered);
  ++stats_.segments_posted;
  if (numbered.signaled) ++stats_.signals;
}

void RogueConnection::on_send_completion(const rnic::WorkCompletion& wc) {
  // Only the active QP's completions count: the others are flushed WQEs of a QP already
  // replaced (or, during a takeover with no QP ready, of the one that failed).
  const std::optional<size_t> active = path_with_role(PathRole::primary);
  if (!active || wc.qp_num != paths_[*active].qp->qp_num()) return;
  if (wc.status != rnic::WcStatus::success) {
    take_over();
    return;
  }
  posted_.complete_through(wc.wr_id, [&](const Segment& s) { retire(s, wc.hw_timestamp); });
  pop_finished_verbs();
  pump();
}

void RogueConnection::retire(const Segment& s, Time completed) {
  Verb* v = s.tag_only ? nullptr : find_verb(s.verb);
  // RC: the batch was acknowledged (t_comp); UC: its last verb left the NIC (t_sig).
  if (s.closes_batch) {
    window_of(s.read ? Op::read : Op::write).on_signal(s.batch, completed);
    // The application's own signal (its signaled verb's last segment) is paid under RoCE too.
    const bool applications = v != nullptr && s.last_of_verb && v->work.signaled;
    if (!applications) charge_signal();
  }
  if (s.tag_only) return;
  if (s.consumes_receive) ++receives_done_;
  if (s.read) read_window_->on_read_bytes(s.bytes);
  if (v == nullptr) return;
  --v->segments_open;
  if (v->cut == v->work.local.length && v->segments_open == 0) finish_verb(*v, Status::success);
}

void RogueConnection::finish_verb(Verb& v, Status status) {
  if (status == Status::success) {
    ++stats_.verbs_completed;
    stats_.bytes_completed += v.work.local.length;
  } else {
    ++stats_.verbs_failed;
  }
  v.finished = true;
  if ((v.work.signaled || status != Status::success) && on_completion_) {
    on_completion_(Completion{
        .wr_id = v.work.wr_id, .op = v.work.op, .status = status, .bytes = v.work.local.length});
  }
}

void RogueConnection::pop_finished_verbs() {
  while (!verbs_.empty() && verbs_.front().finished) verbs_.pop_front();
}

void RogueConnection::on_receive_completion(const rnic::WorkCompletion& wc) {
  receiver_->on_completion(wc);
}

UdVerdict RogueConnection::on_ud_message(const UdSource& from, std::span<const std::byte> bytes,
                                         Time) {
  const bool from_peer = connected() && peer_->ip == from.ip && peer_->ud_qpn == from.qp_num;
  const auto message = decode_control_message(bytes);
  if (!from_peer || !message) return UdVerdict::unroutable_control;
  on_control(message.value);
  return UdVerdict::accepted;
}

void RogueConnection::on_control(const ControlMessage& message) {
  switch (message.kind) {
    case ControlKind::reconnect_request:
    case ControlKind::reconnect_reply:
      resync_.on_control(message);
      break;
    case ControlKind::set_rate:
      receiver_->on_set_rate(message.qp_index, message.value);
      break;
    case ControlKind::takeover:
      receiver_->on_takeover(message);
      break;
    case ControlKind::takeover_ack:
      if (notice_ && notice_->message.sequence == message.sequence) {
        endpoint_.scheduler().cancel(notice_->retry);
        notice_.reset();
      }
      break;
    case ControlKind::parameter_set:
    case ControlKind::parameter_ack:
      ++resync_stats_.controls_ignored;  // Bifröst's remote parameters: not RoGUE's
      break;
  }
}

void RogueConnection::on_echo(uint8_t batch_sequence, Time response_time, Time arrival) {
  charge_signal();  // UC: the echo's receive completion is a signal RoGUE handles
  write_window_->on_echo(batch_sequence, response_time, arrival);
  pump();
}

}  // namespace bifrost::transport::rogue
