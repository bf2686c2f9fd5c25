// The sender's posting side: message queues, chunking and the window.
#include "sender.h"

#include <algorithm>

#include "bifrost/core/error.h"
#include "bifrost/transport/endpoint.h"

namespace bifrost::transport {

namespace {

uint32_t staging_slots(const TransportConfig& c) {
  return 2 * c.max_outstanding_wqes;
}

}  // namespace

Sender::Sender(Connection& connection, Endpoint& endpoint, const TransportConfig& config)
    : connection_(connection),
      endpoint_(endpoint),
      scheduler_(endpoint.scheduler()),
      config_(config),
      imm_(config.imm),
      cc_(make_congestion_control(
          config.cc_location == CcLocation::software ? config.cc : CcConfig{.kind = CcKind::none},
          config.cc_params())),
      chunking_(make_chunk_policy(config)),
      staging_memory_(
          endpoint.make_memory(uint64_t{send_slot_bytes(config)} * staging_slots(config))),
      staging_region_(&endpoint.device().reg_mr(endpoint.pd(), staging_memory_->base(),
                                                staging_memory_->size(), rnic::Access::local_write,
                                                staging_memory_.get())),
      staging_(staging_memory_->base(), send_slot_bytes(config), staging_slots(config)),
      tail_probe_(TailProbe::Settings{.learns = config.tail_probe_learns,
                                      .ack_timer = config.ack_timer,
                                      .min_rto = config.min_rto,
                                      .floor = config.tail_probe_floor}) {}

Sender::~Sender() {
  if (timer_.valid()) scheduler_.cancel(timer_);
  if (probe_.valid()) scheduler_.cancel(probe_);
  if (deferred_pump_.valid()) scheduler_.cancel(deferred_pump_);
  if (activation_.valid()) scheduler_.cancel(activation_);
}

void Sender::check_buffer(const MessageBuffer& buffer, const char* what) const {
  const rnic::MemoryRegion* region = buffer.region;
  if (region == nullptr || region->memory == nullptr) {
    throw Error("{}: the buffer needs a registered region with memory", what);
  }
  if (buffer.length == 0 || buffer.length > config_.max_message_size()) {
    throw Error("{}: a message is 1 to {} bytes, not {}", what, config_.max_message_size(),
                buffer.length);
  }
  if (buffer.addr < region->base || buffer.length > region->length ||
      buffer.addr - region->base > region->length - buffer.length) {
    throw Error("{}: [{:#x}, +{}) is outside its region", what, buffer.addr, buffer.length);
  }
}

Sender::OutMessage& Sender::add_message(Op op, const MessageBuffer& buffer, SendCallback done) {
  const uint64_t number = next_message_++;
  OutMessage& m = messages_.add(number);
  // A fresh entry that keeps the per-unit vectors' capacity of the slot's last message.
  std::vector<bool> unit_acked = std::move(m.unit_acked);
  std::vector<uint64_t> chunk_global = std::move(m.chunk_global);
  std::vector<uint64_t> piece_global = std::move(m.piece_global);
  m = OutMessage{};
  m.unit_acked = std::move(unit_acked);
  m.chunk_global = std::move(chunk_global);
  m.piece_global = std::move(piece_global);
  m.number = number;
  m.op = op;
  m.buffer = buffer;
  m.done = std::move(done);
  m.posted = scheduler_.now();
  // Tracked per unit: large messages and one-sided operations (which need no request round
  // trip to go as chunks), except a UC READ, whose data comes back as the peer's own WRITE.
  const bool uc_read = op == Op::read && config_.reliability == Reliability::software_uc;
  m.large = op == Op::message ? buffer.length > send_threshold() : !uc_read;
  m.has_write_seq = m.large && op != Op::read;
  if (m.has_write_seq) {
    m.write_seq = next_write_seq_++;
    message_of_write_.add(m.write_seq) = number;
  }
  if (m.large) {
    const auto units =
        static_cast<size_t>((buffer.length + config_.unit_size - 1) / config_.unit_size);
    m.unit_acked.assign(units, false);
    m.chunk_global.assign(units, 0);
    m.piece_global.assign(units, 0);
  }
  schedule_pump();
  return m;
}

uint64_t Sender::send(const MessageBuffer& message, SendCallback done) {
  check_buffer(message, "send");
  OutMessage& m = add_message(Op::message, message, std::move(done));
  small_queue_.push_back(m.number);
  return m.number;
}

void Sender::send_reply(SendHeader header) {
  const uint64_t id = next_reply_++;
  Reply& reply = replies_.add(id);
  reply = Reply{};
  reply.header = header;
  reply_queue_.push_back(id);
  pump();
}

void Sender::on_grant(uint32_t message_id, uint64_t address, uint32_t rkey) {
  const uint64_t* number = message_of_write_.find(write_seq_of(message_id));
  if (number == nullptr) return;  // a duplicate grant of a finished message
  OutMessage& m = messages_.at(*number);
  if (m.granted) return;
  m.granted = true;
  m.remote_addr = address;
  m.rkey = rkey;
  release_request_slot(m);
  write_queue_.push_back(m.number);
  pump();
}

void Sender::set_max_chunk(uint32_t max_chunk) {
  config_.max_chunk = max_chunk;
  chunking_ = make_chunk_policy(config_);
}

bool Sender::idle() const {
  return messages_.empty() && (failed_ || (replies_.empty() && window_.empty()));
}

// ---- posting ---------------------------------------------------------------------------------

void Sender::schedule_pump() {
  if (deferred_pump_.valid()) return;
  deferred_pump_ = scheduler_.at(scheduler_.now(), [this] {
    deferred_pump_ = {};
    pump();
  });
}

void Sender::pump() {
  if (failed_) {
    if (!messages_.empty()) fail_all();  // sent after the connection died: fail on this turn
    return;
  }
  if (!connection_.connected()) return;
  if (!connection_.has_primary()) {
    // Every QP is gone. While a reconnect may still bring one back, wait for it; otherwise
    // nothing can carry the messages.
    if (!connection_.reconnecting()) fail_all();
    return;
  }
  // The NIC failed the primary and its failed completion is on its way: fail_over_rc decides.
  if (connection_.primary().state() == rnic::QpState::err) return;
  // A backup that just took over is not ready yet (QpTransitionCosts::activate_ready).
  if (scheduler_.now() < connection_.primary_ready_at()) {
    if (!activation_.valid()) {
      activation_ = scheduler_.at(connection_.primary_ready_at(), [this] {
        activation_ = {};
        pump();
      });
    }
    return;
  }
  // Every CC event (ACK, loss, timeout) and every change of primary ends in a pump.
  apply_pacing();
  while (post_next()) {
  }
}

void Sender::apply_pacing() {
  const std::optional<Rate> rate = cc_->pacing_rate();
  // A CC that never paced leaves the limiter alone: the NIC's own DCQCN may be driving it.
  if (!rate && !paced_) return;
  rnic::QueuePair& qp = connection_.primary();
  if (paced_ && paced_->qp == &qp && paced_->rate == rate) return;
  // Only the primary gets the rate: new WQEs go nowhere else. A QP that was primary before
  // keeps its last limit until it is primary again.
  endpoint_.device().set_rate_limit(qp, rate.value_or(rnic::RateLimiter::unlimited()));
  // The new limit is pending: what is queued now, and the next bytes, still see the old one.
  if (config_.rtt_holdoff_after_rate_change > 0 && (!paced_ || paced_->rate != rate)) {
    rtt_holdoff_until_ = stats_.bytes_posted + config_.rtt_holdoff_after_rate_change;
  }
  paced_ = Pacing{.qp = &qp, .rate = rate};
  ++stats_.pacing_updates;
}

void Sender::fail_all() {
  failed_ = true;
  const Time now = scheduler_.now();
  std::vector<OutMessage> failed;
  messages_.for_each([&failed](uint64_t, OutMessage& m) { failed.push_back(std::move(m)); });
  messages_.clear();
  message_of_write_.clear();
  small_queue_.clear();
  write_queue_.clear();
  retransmit_queue_.clear();
  for (OutMessage& m : failed) {
    ++stats_.messages_failed;
    if (m.done) {
      m.done(SendCompletion{
          .message = m.number, .status = SendStatus::failed, .posted = m.posted, .completed = now});
    }
  }
}

bool Sender::post_next() {
  if (window_.open_count() >= config_.max_outstanding_wqes) return false;
  for (const auto step : {&Sender::post_retransmit, &Sender::post_reply,
                          &Sender::post_small_or_request, &Sender::post_chunk}) {
    const Step s = (this->*step)();
    // Out of staging slots, SENDs wait but WRITE chunks still go: the chunks complete the
    // messages whose requests hold the slots (else 256 large messages outstanding deadlock).
    if (s == Step::empty || s == Step::no_slot) continue;
    return s == Step::posted;
  }
  return false;
}

bool Sender::window_allows(uint64_t bytes) const {
  return window_.open_bytes() == 0 || window_.open_bytes() + bytes <= cc_->window_bytes();
}

uint64_t Sender::send_threshold() const {
  // UC loses a SEND whole with any of its packets and sends it again whole: at 1% packet loss
  // a 16 KiB SEND (17 packets at MTU 1024) goes again 16% of the time, and with two in the
  // window a loss idles the wire for a round trip. As WRITE chunks the loss-aware chunk cap
  // bounds that (bifrost-loss-throughput, Fig. 7's setup: 16 KB at 1% loss 0.70 -> 0.97 of
  // lossless). Without losses nothing changes.
  if (!config_.send_threshold_follows_loss || config_.reliability != Reliability::software_uc) {
    return config_.send_threshold;
  }
  // Twice the chunks' budget: a message moved to chunks pays a request and grant round trip,
  // which a SEND lost 5% of the time (16 KiB at MTU 4096 and 1% loss) is not worth (at the
  // chunks' budget that point fell from 0.95 to 0.86 of lossless; at three times it, 16 KiB
  // at MTU 1024 and 1% sat at the threshold and kept 0.83).
  const uint64_t budget = loss_budget_bytes(2 * config_.chunk_loss_budget, loss_estimate_.rate(),
                                            config_.mtu, config_.send_threshold);
  return std::min<uint64_t>(config_.send_threshold,
                            std::max<uint64_t>(uint64_t{2} * config_.unit_size, budget));
}

bool Sender::resend_allowed(uint64_t bytes) const {
  // A timeout's first resend goes whatever is still open, as TCP's RTO resends one segment
  // whatever its flight: the WQEs the timeout spared (out for less than an RTO) would otherwise
  // hold the one-unit window until the next, backed-off timeout, though the resend's ACK is
  // what reveals them lost (bifrost-loss-throughput, 16 KB at 1% loss: 1.5 ms per such event).
  return timeout_resend_due_ || window_allows(bytes);
}

bool Sender::ack_now_hint() const {
  // The window is exhausted when the next WQE cannot go: a queued SEND's size, at least one
  // unit, or for a chunk the silly-window threshold of post_chunk (a quarter of the window or
  // of max_chunk). Missing the latter left a window-blocked chunk unhinted: its ACK waited for
  // the receiver's timer and, if it was lost, nothing but the RTO found it (seen with dcqcn's
  // rate-sized windows). hint_last_two: also when just one more fits.
  const uint64_t window = cc_->window_bytes();
  const uint64_t next = std::max<uint64_t>(config_.unit_size, next_wqe_bytes());
  const uint32_t behind = config_.hint_last_two ? 1 : 0;  // WQEs that may still follow
  return window_.open_bytes() + next * (1 + behind) > window ||
         window_.open_count() + behind >= config_.max_outstanding_wqes ||
         (config_.hint_when_idle && !has_more_to_post());
}

uint64_t Sender::next_wqe_bytes() const {
  // post_next's order. A queued small message is as large as its SEND: taking one unit for it
  // left a 16 KiB request that filled the window unhinted, so its ACK waited for the
  // receiver's 120 us timer and, if it was lost, no tail probe was armed and only the RTO found
  // it (bifrost-loss-throughput: 16 KiB at 1% loss, 1.8 Gb/s of 25).
  if (!retransmit_queue_.empty() || !reply_queue_.empty()) return 0;
  if (!small_queue_.empty()) {
    if (const OutMessage* m = messages_.find(small_queue_.front())) return first_send(*m).bytes;
    return 0;
  }
  if (write_queue_.empty()) return 0;
  return std::min<uint64_t>(config_.max_chunk / 4, cc_->window_bytes() / 4);
}

bool Sender::has_more_to_post() const {
  if (!retransmit_queue_.empty() || !reply_queue_.empty() || !small_queue_.empty()) return true;
  // Every message in write_queue_ still has bytes to chunk (post_chunk removes it with its last
  // chunk).
  return !write_queue_.empty();
}

Sender::Step Sender::post_retransmit() {
  while (!retransmit_queue_.empty()) {
    const Retransmit r = retransmit_queue_.front();
    if (r.kind == Kind::reply) {
      Reply* g = replies_.find(r.key);
      if (g == nullptr || g->acked) {
        retransmit_queue_.pop_front();
        continue;
      }
      if (!resend_allowed(kSendHeaderSize)) return Step::blocked;
      retransmit_queue_.pop_front();
      InFlight& wqe = record(Kind::reply, r.key, kSendHeaderSize, &r);
      ++g->posted_wqes;
      post_send_slot(wqe, *g->slot, g->header, kSendHeaderSize);
      ++stats_.retransmitted_wqes;
      timeout_resend_due_ = false;
      return Step::posted;
    }
    OutMessage* found = messages_.find(r.key);
    if (found == nullptr || found->acked || (r.kind == Kind::request && found->granted) ||
        ((r.kind == Kind::piece || r.kind == Kind::chunk || r.kind == Kind::read_chunk) &&
         found->unit_acked[r.unit])) {
      retransmit_queue_.pop_front();
      continue;
    }
    OutMessage& m = *found;
    if (r.kind == Kind::chunk || r.kind == Kind::read_chunk) {
      // RC one-sided: the NIC reads or writes the range again (the target's software never
      // sees it, so it cannot place pieces).
      const uint64_t offset = uint64_t{r.unit} * config_.unit_size;
      const uint64_t length =
          std::min<uint64_t>(uint64_t{r.units} * config_.unit_size, m.buffer.length - offset);
      if (!resend_allowed(length)) return Step::blocked;
      retransmit_queue_.pop_front();
      InFlight& wqe = record(r.kind, m.number, static_cast<uint32_t>(length), &r);
      wqe.unit = r.unit;
      wqe.units = r.units;
      ++m.posted_wqes;
      post_range(wqe, m, offset, length, ack_now_hint());
      ++stats_.retransmitted_wqes;
      timeout_resend_due_ = false;
      return Step::posted;
    }
    if (r.kind == Kind::piece) {
      const uint32_t length = unit_bytes(m, r.unit);
      const uint32_t bytes = static_cast<uint32_t>(kSendHeaderSize) + length;
      if (!resend_allowed(bytes)) return Step::blocked;
      const auto slot = staging_.acquire();
      if (!slot) return Step::no_slot;
      retransmit_queue_.pop_front();
      copy_into_slot(*slot, m.buffer, uint64_t{r.unit} * config_.unit_size, length);
      InFlight& wqe = record(Kind::piece, m.number, bytes, &r);
      wqe.unit = r.unit;
      wqe.units = 1;
      wqe.slot = slot;
      m.piece_global[r.unit] = wqe.global;
      post_send_slot(wqe, *slot,
                     SendHeader{.type = SendType::write_piece,
                                .hint = ack_now_hint(),
                                .send_number = r.send_number ? *r.send_number : next_send_number(),
                                .message_id = write_id(m.write_seq),
                                .argument = r.unit},
                     bytes);
      ++stats_.retransmitted_wqes;
      timeout_resend_due_ = false;
      return Step::posted;
    }
    // An operation's first SEND: the same slot and SEND number, a new global number.
    FirstSend first = first_send(m);
    if (!resend_allowed(first.bytes)) return Step::blocked;
    retransmit_queue_.pop_front();
    InFlight& wqe = record(first.kind, m.number, first.bytes, &r);
    ++m.posted_wqes;
    if (first.kind == Kind::request) ++m.requests_in_nic;
    first.header.hint = ack_now_hint();
    first.header.send_number = m.send_number;
    post_send_slot(wqe, *m.slot, first.header, first.bytes);
    ++stats_.retransmitted_wqes;
    timeout_resend_due_ = false;
    return Step::posted;
  }
  return Step::empty;
}

Sender::Step Sender::post_reply() {
  if (reply_queue_.empty()) return Step::empty;
  if (!window_allows(kSendHeaderSize)) return Step::blocked;
  const auto slot = staging_.acquire();
  if (!slot) return Step::no_slot;
  const uint64_t id = reply_queue_.front();
  reply_queue_.pop_front();
  Reply& g = replies_.at(id);
  g.slot = slot;
  g.header.send_number = next_send_number();
  ++g.posted_wqes;
  InFlight& wqe = record(Kind::reply, id, kSendHeaderSize);
  post_send_slot(wqe, *slot, g.header, kSendHeaderSize);
  return Step::posted;
}

Sender::FirstSend Sender::first_send(const OutMessage& m) const {
  const auto length = static_cast<uint32_t>(m.buffer.length);
  switch (m.op) {
    case Op::message:
      if (!m.large) {
        return {Kind::message, SendHeader{.type = SendType::message, .argument = length},
                static_cast<uint32_t>(kSendHeaderSize) + length};
      }
      return {Kind::request,
              SendHeader{.type = SendType::write_request,
                         .message_id = write_id(m.write_seq),
                         .argument = length},
              static_cast<uint32_t>(kSendHeaderSize)};
    case Op::write:
      return {Kind::notice,
              SendHeader{.type = SendType::write_notice,
                         .message_id = write_id(m.write_seq),
                         .argument = length,
                         .address = m.remote_addr},
              static_cast<uint32_t>(kSendHeaderSize + kOneSidedTrailerSize)};
    case Op::read:
      return {Kind::read_request,
              SendHeader{.type = SendType::read_request,
                         .message_id = m.read_id,
                         .argument = length,
                         .address = m.remote_addr},
              static_cast<uint32_t>(kSendHeaderSize + kOneSidedTrailerSize)};
  }
  return {};
}

void Sender::fill_first_send(const OutMessage& m, uint32_t slot) {
  if (m.op == Op::message) {
    if (!m.large) copy_into_slot(slot, m.buffer, 0, m.buffer.length);
    return;
  }
  const OneSidedTrailer trailer = m.op == Op::write
                                      ? OneSidedTrailer{.rkey = m.rkey}
                                      : OneSidedTrailer{.rkey = m.rkey,
                                                        .reply_rkey = m.buffer.region->rkey,
                                                        .reply_address = m.buffer.addr};
  staging_memory_->write(staging_.address(slot) + kSendHeaderSize,
                         scratch(kOneSidedTrailerSize, [&trailer](std::span<std::byte> out) {
                           (void)encode_one_sided_trailer(trailer, out);
                           return kOneSidedTrailerSize;
                         }));
}

Sender::Step Sender::post_small_or_request() {
  if (small_queue_.empty()) return Step::empty;
  OutMessage& m = messages_.at(small_queue_.front());
  FirstSend first = first_send(m);
  if (!window_allows(first.bytes)) return Step::blocked;
  const auto slot = staging_.acquire();
  if (!slot) return Step::no_slot;
  small_queue_.pop_front();
  m.slot = slot;
  if (first.kind == Kind::request) ++m.requests_in_nic;
  m.send_number = next_send_number();
  fill_first_send(m, *slot);
  InFlight& wqe = record(first.kind, m.number, first.bytes);
  ++m.posted_wqes;
  // A one-sided WRITE's chunks follow its notice on the same QP: the target learns of the
  // operation before its bytes (unless the notice is lost; see Receiver::on_write).
  if (first.kind == Kind::notice) write_queue_.push_back(m.number);
  first.header.hint = ack_now_hint();
  first.header.send_number = m.send_number;
  post_send_slot(wqe, *slot, first.header, first.bytes);
  return Step::posted;
}

Sender::Step Sender::post_chunk() {
  while (!write_queue_.empty()) {
    OutMessage& m = messages_.at(write_queue_.front());
    const uint64_t remaining = m.buffer.length - m.chunked;
    if (remaining == 0) {
      write_queue_.pop_front();
      continue;
    }
    const uint64_t window = cc_->window_bytes();
    const ChunkContext context{
        .remaining = remaining,
        .window_available = window > window_.open_bytes() ? window - window_.open_bytes() : 0,
        .bdp = static_cast<uint64_t>(static_cast<double>(config_.line_rate_bps) / 8 *
                                     config_.base_rtt.seconds()),
        .rtt = rtt_.has_sample() ? rtt_.srtt() : Time::zero(),
        .base_rtt = config_.base_rtt,
        .loss_rate = loss_estimate_.rate()};
    // Silly-window avoidance: with data in flight, wait until the window has room for a
    // worthwhile chunk instead of trickling one unit per ACK.
    const uint64_t worthwhile = std::min<uint64_t>({remaining, config_.max_chunk / 4, window / 4});
    if (window_.open_bytes() > 0 && context.window_available < worthwhile) return Step::blocked;
    const uint64_t chunk = chunking_->next_chunk(context);
    if (!window_allows(chunk)) return Step::blocked;
    const uint64_t offset = m.chunked;
    const uint32_t unit = static_cast<uint32_t>(offset / config_.unit_size);
    const Kind kind = m.op == Op::read ? Kind::read_chunk : Kind::chunk;
    InFlight& wqe = record(kind, m.number, static_cast<uint32_t>(chunk));
    wqe.unit = unit;
    wqe.units = static_cast<uint32_t>((chunk + config_.unit_size - 1) / config_.unit_size);
    m.chunk_global[unit] = wqe.global;
    ++m.posted_wqes;
    m.chunked += chunk;
    // Leave the queue with the last chunk: the message may complete (and leave messages_)
    // before the queue is looked at again.
    if (m.chunked == m.buffer.length) write_queue_.pop_front();
    post_range(wqe, m, offset, chunk, ack_now_hint());
    ++stats_.chunks;
    return Step::posted;
  }
  return Step::empty;
}

Sender::InFlight& Sender::record(Kind kind, uint64_t key, uint32_t bytes, const Retransmit* again) {
  InFlight& wqe = window_.open(bytes);
  wqe.kind = kind;
  wqe.key = key;
  if (again != nullptr) wqe.out_since = again->out_since;
  wqe.posted_at = stats_.bytes_posted;
  if (connection_.has_primary()) wqe.qp_num = connection_.primary().qp_num();
  if (config_.reliability == Reliability::hardware_rc) {
    // RC completes at the ACK, so the RTT would include the time the WQE waited in the NIC
    // behind earlier ones. Like RoGUE, start it when the WQE's last byte is estimated to leave:
    // the NIC serializes the QP's WQEs back to back at line rate. (A NIC that reports when the
    // last packet left, WorkCompletion::sent_timestamp, replaces the estimate.)
    const Time start = std::max(endpoint_.clock().nic_now(), nic_busy_until_);
    nic_busy_until_ = start + Time::from_seconds(static_cast<double>(bytes) * 8 /
                                                 static_cast<double>(config_.line_rate_bps));
    wqe.t1_posted = nic_busy_until_;
  }
  loss_estimate_.on_sent(std::max<uint64_t>(1, (uint64_t{bytes} + config_.mtu - 1) / config_.mtu));
  ++stats_.wqes_posted;
  stats_.bytes_posted += bytes;
  return wqe;
}

void Sender::copy_into_slot(uint32_t slot, const MessageBuffer& from, uint64_t offset,
                            uint64_t length) {
  from.region->memory->read(from.addr + offset, static_cast<uint32_t>(length), scratch_);
  staging_memory_->write(staging_.address(slot) + kSendHeaderSize, scratch_);
}

bool Sender::post_ack(const SoftAck& ack) {
  if (failed_ || !connection_.connected() || !connection_.has_primary()) return false;
  const auto slot = staging_.acquire();
  if (!slot) return false;
  const world::Payload& payload =
      scratch(kSendHeaderSize + kSoftAckHeaderSize + 4 * size_t{ack.count},
              [&ack](std::span<std::byte> out) {
                (void)encode_send_header(SendHeader{.type = SendType::ack}, out);
                const auto size = encode_soft_ack(ack, out.subspan(kSendHeaderSize));
                if (!size)
                  throw Error("software ACK does not encode: {}", wire::describe(size.error));
                return kSendHeaderSize + size.value;
              });
  staging_memory_->write(staging_.address(*slot), payload);
  rnic::SendWr wr;
  wr.wr_id = kAckWr | *slot;
  wr.opcode = rnic::WrOpcode::send;
  wr.sge = rnic::Sge{
      .addr = staging_.address(*slot), .length = payload.length, .lkey = staging_region_->lkey};
  connection_.primary().post_send(wr);
  return true;
}

void Sender::post_send_slot(InFlight& wqe, uint32_t slot, SendHeader header, uint32_t length) {
  header.global = wqe.global;
  wqe.send_number = header.send_number;
  if (config_.reliability == Reliability::software_uc) {
    open_by_send_number_.carry(send_count_of(header.send_number), wqe.global);
  }
  staging_memory_->write(staging_.address(slot),
                         scratch(kSendHeaderSize, [&header](std::span<std::byte> out) {
                           (void)encode_send_header(header, out);
                           return kSendHeaderSize;
                         }));
  rnic::SendWr wr;
  wr.wr_id = wqe.global;
  wr.opcode = rnic::WrOpcode::send;
  wr.sge =
      rnic::Sge{.addr = staging_.address(slot), .length = length, .lkey = staging_region_->lkey};
  connection_.primary().post_send(wr);
  wqe.hinted = header.hint;
}

void Sender::post_range(InFlight& wqe, const OutMessage& m, uint64_t offset, uint64_t length,
                        bool hint) {
  rnic::SendWr wr;
  wr.wr_id = wqe.global;
  // RC one-sided operations are the NIC's own; everything else carries the immediate data the
  // receiving software acknowledges and reassembles by.
  const bool plain = config_.reliability == Reliability::hardware_rc && m.op != Op::message;
  wr.opcode = m.op == Op::read ? rnic::WrOpcode::rdma_read
              : plain          ? rnic::WrOpcode::rdma_write
                               : rnic::WrOpcode::rdma_write_with_imm;
  wr.sge = rnic::Sge{.addr = m.buffer.addr + offset,
                     .length = static_cast<uint32_t>(length),
                     .lkey = m.buffer.region->lkey};
  wr.remote_addr = m.remote_addr + offset;
  wr.rkey = m.rkey;
  wr.imm = imm_.encode(WriteImm{.hint = hint,
                                .message_id = write_id(m.write_seq),
                                .unit_offset = static_cast<uint32_t>(offset / config_.unit_size)});
  connection_.primary().post_send(wr);
  wqe.hinted = hint;
}

uint32_t Sender::unit_bytes(const OutMessage& m, uint32_t unit) const {
  const uint64_t start = uint64_t{unit} * config_.unit_size;
  return static_cast<uint32_t>(std::min<uint64_t>(config_.unit_size, m.buffer.length - start));
}

uint64_t Sender::write_seq_of(uint32_t message_id) const {
  // The newest write sequence number with these low bits: ids are reused only after 2^bits
  // large messages, far more than can be outstanding.
  if (next_write_seq_ == 0) return 0;
  const uint64_t newest = next_write_seq_ - 1;
  return newest - ((newest - message_id) & imm_.message_id_mask());
}

}  // namespace bifrost::transport
