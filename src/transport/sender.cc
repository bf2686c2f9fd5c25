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
          config.cc_location == CcLocation::software ? config.cc : "none",
          CcParams{.base_rtt = config.base_rtt,
                   .bdp_bytes = static_cast<uint64_t>(static_cast<double>(config.line_rate_bps) /
                                                      8 * config.base_rtt.seconds()),
                   .mss = config.unit_size})),
      chunking_(make_chunk_policy(config)),
      staging_memory_(
          endpoint.make_memory(uint64_t{send_slot_bytes(config)} * staging_slots(config))),
      staging_region_(&endpoint.device().reg_mr(endpoint.pd(), staging_memory_->base(),
                                                staging_memory_->size(), rnic::Access::local_write,
                                                staging_memory_.get())),
      staging_(staging_memory_->base(), send_slot_bytes(config), staging_slots(config)) {}

Sender::~Sender() {
  if (timer_.valid()) scheduler_.cancel(timer_);
  if (probe_.valid()) scheduler_.cancel(probe_);
  if (deferred_pump_.valid()) scheduler_.cancel(deferred_pump_);
}

uint64_t Sender::send(const MessageBuffer& message, SendCallback done) {
  const rnic::MemoryRegion* region = message.region;
  if (region == nullptr || region->memory == nullptr) {
    throw Error("send: the message buffer needs a registered region with memory");
  }
  if (message.length == 0 || message.length > config_.max_message_size()) {
    throw Error("send: a message is 1 to {} bytes, not {}", config_.max_message_size(),
                message.length);
  }
  if (message.addr < region->base || message.length > region->length ||
      message.addr - region->base > region->length - message.length) {
    throw Error("send: [{:#x}, +{}) is outside its region", message.addr, message.length);
  }
  const uint64_t number = next_message_++;
  OutMessage& m = messages_[number];
  m.number = number;
  m.buffer = message;
  m.done = std::move(done);
  m.posted = scheduler_.now();
  m.large = message.length > config_.send_threshold;
  if (m.large) {
    m.write_seq = next_write_seq_++;
    message_of_write_[m.write_seq] = number;
    const auto units =
        static_cast<size_t>((message.length + config_.unit_size - 1) / config_.unit_size);
    m.unit_acked.assign(units, false);
    m.chunk_global.assign(units, 0);
  }
  small_queue_.push_back(number);
  schedule_pump();
  return number;
}

void Sender::send_grant(uint32_t message_id, uint64_t address, uint32_t rkey) {
  Grant& g = grants_[message_id];
  g.address = address;
  g.rkey = rkey;
  grant_queue_.push_back(message_id);
  pump();
}

void Sender::on_grant(uint32_t message_id, uint64_t address, uint32_t rkey) {
  const auto seq = message_of_write_.find(write_seq_of(message_id));
  if (seq == message_of_write_.end()) return;  // a duplicate grant of a finished message
  OutMessage& m = messages_.at(seq->second);
  if (m.granted) return;
  m.granted = true;
  m.remote_addr = address;
  m.rkey = rkey;
  release_request_slot(m);
  write_queue_.push_back(m.number);
  pump();
}

bool Sender::idle() const {
  return messages_.empty() && (failed_ || (grants_.empty() && in_flight_.empty()));
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
  while (post_next()) {
  }
}

void Sender::fail_all() {
  failed_ = true;
  const Time now = scheduler_.now();
  std::vector<OutMessage> failed;
  for (auto& [number, m] : messages_) failed.push_back(std::move(m));
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
  if (outstanding_ >= config_.max_outstanding_wqes) return false;
  for (const auto step : {&Sender::post_retransmit, &Sender::post_grant,
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
  return bytes_in_flight_ == 0 || bytes_in_flight_ + bytes <= cc_->window_bytes();
}

bool Sender::ack_now_hint() const {
  return bytes_in_flight_ + config_.unit_size > cc_->window_bytes() ||
         outstanding_ >= config_.max_outstanding_wqes ||
         (config_.hint_when_idle && !has_more_to_post());
}

bool Sender::has_more_to_post() const {
  if (!retransmit_queue_.empty() || !grant_queue_.empty() || !small_queue_.empty()) return true;
  // Every message in write_queue_ still has bytes to chunk (post_chunk removes it with its last
  // chunk).
  return !write_queue_.empty();
}

Sender::Step Sender::post_retransmit() {
  while (!retransmit_queue_.empty()) {
    const Retransmit r = retransmit_queue_.front();
    if (r.kind == Kind::grant) {
      const auto g = grants_.find(static_cast<uint32_t>(r.key));
      if (g == grants_.end() || g->second.acked) {
        retransmit_queue_.pop_front();
        continue;
      }
      if (!window_allows(kSendHeaderSize)) return Step::blocked;
      retransmit_queue_.pop_front();
      InFlight& wqe = record(Kind::grant, r.key, kSendHeaderSize);
      ++g->second.posted_wqes;
      post_send_slot(wqe, *g->second.slot,
                     SendHeader{.type = SendType::write_grant,
                                .send_number = g->second.send_number,
                                .message_id = static_cast<uint32_t>(r.key),
                                .argument = g->second.rkey,
                                .address = g->second.address},
                     kSendHeaderSize);
      ++stats_.retransmitted_wqes;
      return Step::posted;
    }
    const auto it = messages_.find(r.key);
    if (it == messages_.end() || it->second.acked ||
        (r.kind == Kind::request && it->second.granted) ||
        (r.kind == Kind::piece && it->second.unit_acked[r.unit])) {
      retransmit_queue_.pop_front();
      continue;
    }
    OutMessage& m = it->second;
    if (r.kind == Kind::piece) {
      const uint32_t length = unit_bytes(m, r.unit);
      const uint32_t bytes = static_cast<uint32_t>(kSendHeaderSize) + length;
      if (!window_allows(bytes)) return Step::blocked;
      const auto slot = staging_.acquire();
      if (!slot) return Step::no_slot;
      retransmit_queue_.pop_front();
      copy_into_slot(*slot, m.buffer, uint64_t{r.unit} * config_.unit_size, length);
      InFlight& wqe = record(Kind::piece, m.number, bytes);
      wqe.unit = r.unit;
      wqe.units = 1;
      wqe.slot = slot;
      post_send_slot(wqe, *slot,
                     SendHeader{.type = SendType::write_piece,
                                .hint = ack_now_hint(),
                                .send_number = r.send_number ? *r.send_number : next_send_number(),
                                .message_id = write_id(m.write_seq),
                                .argument = r.unit},
                     bytes);
      ++stats_.retransmitted_wqes;
      return Step::posted;
    }
    // A small message or a write request: the same slot and SEND number, a new global number.
    const bool request = r.kind == Kind::request;
    const uint32_t bytes = static_cast<uint32_t>(kSendHeaderSize + (request ? 0 : m.buffer.length));
    if (!window_allows(bytes)) return Step::blocked;
    retransmit_queue_.pop_front();
    InFlight& wqe = record(r.kind, m.number, bytes);
    ++m.posted_wqes;
    if (request) ++m.requests_in_nic;
    post_send_slot(wqe, *m.slot,
                   SendHeader{.type = request ? SendType::write_request : SendType::message,
                              .hint = ack_now_hint(),
                              .send_number = m.send_number,
                              .message_id = request ? write_id(m.write_seq) : 0,
                              .argument = static_cast<uint32_t>(m.buffer.length)},
                   bytes);
    ++stats_.retransmitted_wqes;
    return Step::posted;
  }
  return Step::empty;
}

Sender::Step Sender::post_grant() {
  if (grant_queue_.empty()) return Step::empty;
  if (!window_allows(kSendHeaderSize)) return Step::blocked;
  const auto slot = staging_.acquire();
  if (!slot) return Step::no_slot;
  const uint32_t id = grant_queue_.front();
  grant_queue_.pop_front();
  Grant& g = grants_.at(id);
  g.slot = slot;
  g.send_number = next_send_number();
  ++g.posted_wqes;
  InFlight& wqe = record(Kind::grant, id, kSendHeaderSize);
  post_send_slot(wqe, *slot,
                 SendHeader{.type = SendType::write_grant,
                            .send_number = g.send_number,
                            .message_id = id,
                            .argument = g.rkey,
                            .address = g.address},
                 kSendHeaderSize);
  return Step::posted;
}

Sender::Step Sender::post_small_or_request() {
  if (small_queue_.empty()) return Step::empty;
  OutMessage& m = messages_.at(small_queue_.front());
  const uint32_t bytes = static_cast<uint32_t>(kSendHeaderSize + (m.large ? 0 : m.buffer.length));
  if (!window_allows(bytes)) return Step::blocked;
  const auto slot = staging_.acquire();
  if (!slot) return Step::no_slot;
  small_queue_.pop_front();
  m.slot = slot;
  if (m.large) ++m.requests_in_nic;
  m.send_number = next_send_number();
  if (!m.large) copy_into_slot(*slot, m.buffer, 0, m.buffer.length);
  InFlight& wqe = record(m.large ? Kind::request : Kind::message, m.number, bytes);
  ++m.posted_wqes;
  post_send_slot(wqe, *slot,
                 SendHeader{.type = m.large ? SendType::write_request : SendType::message,
                            .hint = ack_now_hint(),
                            .send_number = m.send_number,
                            .message_id = m.large ? write_id(m.write_seq) : 0,
                            .argument = static_cast<uint32_t>(m.buffer.length)},
                 bytes);
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
        .window_available = window > bytes_in_flight_ ? window - bytes_in_flight_ : 0,
        .bdp = static_cast<uint64_t>(static_cast<double>(config_.line_rate_bps) / 8 *
                                     config_.base_rtt.seconds()),
        .rtt = rtt_.has_sample() ? rtt_.srtt() : Time::zero(),
        .base_rtt = config_.base_rtt};
    // Silly-window avoidance: with data in flight, wait until the window has room for a
    // worthwhile chunk instead of trickling one unit per ACK.
    const uint64_t worthwhile = std::min<uint64_t>({remaining, config_.max_chunk / 4, window / 4});
    if (bytes_in_flight_ > 0 && context.window_available < worthwhile) return Step::blocked;
    const uint64_t chunk = chunking_->next_chunk(context);
    if (!window_allows(chunk)) return Step::blocked;
    const uint64_t offset = m.chunked;
    const uint32_t unit = static_cast<uint32_t>(offset / config_.unit_size);
    InFlight& wqe = record(Kind::chunk, m.number, static_cast<uint32_t>(chunk));
    wqe.unit = unit;
    wqe.units = static_cast<uint32_t>((chunk + config_.unit_size - 1) / config_.unit_size);
    m.chunk_global[unit] = wqe.global;
    ++m.posted_wqes;
    m.chunked += chunk;
    // Leave the queue with the last chunk: the message may complete (and leave messages_)
    // before the queue is looked at again.
    if (m.chunked == m.buffer.length) write_queue_.pop_front();
    post_write(wqe, m, offset, chunk, ack_now_hint());
    ++stats_.chunks;
    return Step::posted;
  }
  return Step::empty;
}

Sender::InFlight& Sender::record(Kind kind, uint64_t key, uint32_t bytes) {
  // Posting into an empty pipe starts the RTO clock afresh, unless the pipe is empty because
  // its WQEs were declared lost: a tail probe resending one WQE at a time on a dead path must
  // not keep the timeouts (and with them the failover) from ever coming.
  if (outstanding_ == 0 && !loss_unrepaired_) last_progress_ = scheduler_.now();
  InFlight& wqe = in_flight_.emplace_back();
  wqe.global = next_global_++;
  wqe.kind = kind;
  wqe.key = key;
  wqe.bytes = bytes;
  if (config_.reliability == Reliability::hardware_rc) {
    // RC completes at the ACK, so the RTT would include the time the WQE waited in the NIC
    // behind earlier ones. Like RoGUE, start it when the WQE's last byte is estimated to leave:
    // the NIC serializes the QP's WQEs back to back at line rate.
    const Time start = std::max(endpoint_.clock().nic_now(), nic_busy_until_);
    nic_busy_until_ = start + Time::from_seconds(static_cast<double>(bytes) * 8 /
                                                 static_cast<double>(config_.line_rate_bps));
    wqe.t1_posted = nic_busy_until_;
  }
  ++outstanding_;
  bytes_in_flight_ += bytes;
  ++stats_.wqes_posted;
  stats_.bytes_posted += bytes;
  arm_timer();
  return wqe;
}

void Sender::copy_into_slot(uint32_t slot, const MessageBuffer& from, uint64_t offset,
                            uint64_t length) {
  world::Payload payload;
  from.region->memory->read(from.addr + offset, static_cast<uint32_t>(length), payload);
  staging_memory_->write(staging_.address(slot) + kSendHeaderSize, payload);
}

void Sender::post_send_slot(InFlight& wqe, uint32_t slot, SendHeader header, uint32_t length) {
  header.global = wqe.global;
  wqe.send_number = header.send_number;
  world::Payload payload;
  payload.length = kSendHeaderSize;
  payload.bytes.resize(kSendHeaderSize);
  (void)encode_send_header(header, payload.bytes);
  staging_memory_->write(staging_.address(slot), payload);
  rnic::SendWr wr;
  wr.wr_id = wqe.global;
  wr.opcode = rnic::WrOpcode::send;
  wr.sge =
      rnic::Sge{.addr = staging_.address(slot), .length = length, .lkey = staging_region_->lkey};
  connection_.primary().post_send(wr);
  wqe.hinted = header.hint;
}

void Sender::post_write(InFlight& wqe, const OutMessage& m, uint64_t offset, uint64_t length,
                        bool hint) {
  rnic::SendWr wr;
  wr.wr_id = wqe.global;
  wr.opcode = rnic::WrOpcode::rdma_write_with_imm;
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
