#include "receiver.h"

#include <algorithm>
#include <array>

#include "bifrost/transport/endpoint.h"
#include "sender.h"

namespace bifrost::transport {

namespace {

constexpr uint64_t kGlobalWindow = uint64_t{1} << 32;
constexpr uint32_t kSendWindow = 4096;  // SEND reliable numbers tracked above the floor

}  // namespace

Receiver::Receiver(Connection& connection, Endpoint& endpoint, const TransportConfig& config,
                   Sender& sender)
    : connection_(connection),
      endpoint_(endpoint),
      config_(config),
      sender_(sender),
      imm_(config.imm),
      slot_memory_(endpoint.make_memory(uint64_t{send_slot_bytes(config)} * config.receive_slots *
                                        (1 + config.backup_qps))),
      slot_region_(&endpoint.device().reg_mr(endpoint.pd(), slot_memory_->base(),
                                             slot_memory_->size(), rnic::Access::local_write,
                                             slot_memory_.get())),
      slot_bytes_(send_slot_bytes(config)),
      arena_memory_(endpoint.make_memory(config.arena_bytes)),
      arena_region_(&endpoint.device().reg_mr(
          endpoint.pd(), arena_memory_->base(), arena_memory_->size(),
          rnic::Access::local_write | rnic::Access::remote_write, arena_memory_.get())),
      arena_(arena_memory_->base(), config.arena_bytes, config.unit_size),
      sends_seen_(kSendWindow),
      writes_done_(kSendWindow),
      acks_(AckCoalescing{.wqes = config.ack_every_wqes, .bytes = config.ack_every_bytes}) {}

Receiver::~Receiver() {
  if (ack_timer_.valid()) endpoint_.scheduler().cancel(ack_timer_);
}

void Receiver::start() {
  for (size_t index = 0; index < connection_.qps().size(); ++index) post_receives(index);
}

void Receiver::post_receives(size_t qp_index) {
  const uint64_t first = uint64_t{config_.receive_slots} * qp_index;
  for (uint64_t slot = first; slot < first + config_.receive_slots; ++slot) repost(slot);
}

void Receiver::repost(uint64_t slot) {
  rnic::QueuePair& qp = *connection_.qps()[slot / config_.receive_slots].qp;
  if (qp.state() != rnic::QpState::rts) return;  // failed, or a reconnect not yet agreed
  rnic::RecvWr wr;
  wr.wr_id = slot;
  wr.sge = rnic::Sge{.addr = slot_address(slot), .length = slot_bytes_, .lkey = slot_region_->lkey};
  qp.post_recv(wr);
}

void Receiver::on_completion(const rnic::WorkCompletion& wc) {
  if (wc.status == rnic::WcStatus::flush_error) return;  // its QP failed: not reposted
  if (wc.status != rnic::WcStatus::success) {
    ++stats_.malformed;
  } else if (wc.opcode == rnic::WcOpcode::recv) {
    on_send(wc, slot_address(wc.wr_id));
  } else {
    on_write(wc);
  }
  // A QP replaced by a reconnect got all its slots posted on the new one: a completion of the
  // old QP still queued here gives its slot back to nobody.
  if (wc.qp_num == connection_.qps()[wc.wr_id / config_.receive_slots].qp->qp_num()) {
    repost(wc.wr_id);
  }
}

void Receiver::on_send(const rnic::WorkCompletion& wc, uint64_t slot_addr) {
  std::array<std::byte, kSendHeaderSize> bytes{};
  if (wc.byte_len < kSendHeaderSize) {
    ++stats_.wqes_received;
    ++stats_.malformed;
    return;
  }
  slot_memory_->copy_out(slot_addr, bytes);
  const auto decoded = decode_send_header(bytes);
  if (decoded && decoded.value.type == SendType::ack) {
    on_ack_send(wc, slot_addr);  // not a WQE of ours
    return;
  }
  ++stats_.wqes_received;
  if (!decoded) {
    ++stats_.malformed;
    return;
  }
  const SendHeader& h = decoded.value;
  // A WQE numbered 2^32 beyond anything seen cannot be acknowledged (the ACK's 4-byte
  // compression) and cannot be genuine: at most max_outstanding_wqes are in flight.
  if (h.global >= highest_global_ + kGlobalWindow) {
    ++stats_.out_of_window;
    return;
  }
  const uint64_t seq = writes_done_.extend(h.message_id, 31 - config_.imm.chunk_offset_bits);
  if (h.type == SendType::write_piece && !writes_done_.contains(seq) && !writes_.contains(seq)) {
    // A piece of a one-sided WRITE whose notice has not arrived: not taken (its SEND number
    // stays free for the copy that comes again) and not acknowledged, like an early chunk.
    ++stats_.early_writes;
    return;
  }
  const uint64_t number = sends_seen_.extend(h.send_number, 32);
  SequenceSet::Insert insert = sends_seen_.insert(number);
  if (insert == SequenceSet::Insert::out_of_window) {
    // A SEND number the sender gave up on (a posted piece whose unit then arrived another way)
    // leaves a hole that never fills; one kSendWindow numbers old is surely abandoned, since a
    // pending retransmission goes before new WQEs (see docs/transport.md).
    stats_.send_holes_forgotten += sends_seen_.raise_floor(number - kSendWindow + 1);
    insert = sends_seen_.insert(number);
  }
  highest_global_ = std::max(highest_global_, h.global);
  const bool fresh = insert == SequenceSet::Insert::added;
  // Out of order (A.1.1's ACK trigger) is every arrival above a missing number, as TCP's
  // receiver reads it, not only the first past the gap: after a loss cuts the sender's window
  // to one unit below what it has in flight, the resend waits for those WQEs (sent unhinted into
  // the old window) to be acknowledged, and acknowledging only the first left the rest to the
  // 120 us ACK timer (bifrost-loss-throughput, `paper` at 1/1024: a ~121 us stall per loss). A
  // hole max_outstanding_wqes numbers below stayed open while a window's worth of later SENDs
  // went (resent and lost again, or given up on): it triggers nothing more.
  const uint64_t floor = sends_seen_.floor();
  const bool out_of_order =
      fresh && (number > next_send_number_ ||
                (floor < number && number - floor < config_.max_outstanding_wqes));
  if (fresh) {
    next_send_number_ = std::max(next_send_number_, number + 1);
    const uint32_t data_length = wc.byte_len - static_cast<uint32_t>(kSendHeaderSize);
    switch (h.type) {
      case SendType::message:
        deliver(*slot_memory_, slot_addr + kSendHeaderSize, data_length, false);
        break;
      case SendType::write_request:
        on_request(seq, h.argument);
        break;
      case SendType::write_grant:
        sender_.on_grant(h.message_id, h.address, h.argument);
        break;
      case SendType::write_piece:
        on_piece(h, seq, slot_addr + kSendHeaderSize, data_length);
        break;
      case SendType::write_notice:
        on_notice(h, seq, slot_addr + kSendHeaderSize, data_length);
        break;
      case SendType::write_refused:
        sender_.on_write_refused(h.message_id);
        break;
      case SendType::read_request:
        on_read_request(h, slot_addr + kSendHeaderSize, data_length);
        break;
      case SendType::read_done:
        sender_.on_read_done(h.message_id, static_cast<ReadStatus>(h.argument));
        break;
      case SendType::ack:
        break;  // handled before the reliable spaces
    }
  } else {
    ++stats_.duplicates;
  }
  acknowledge(AckedWqe{.is_send = true, .global = h.global}, wc, h.hint, out_of_order);
}

void Receiver::on_write(const rnic::WorkCompletion& wc) {
  ++stats_.wqes_received;
  if (!wc.imm || wc.byte_len == 0) {
    ++stats_.malformed;
    return;
  }
  const WriteImm imm = imm_.decode(*wc.imm);
  const uint64_t seq = writes_done_.extend(imm.message_id, 31 - config_.imm.chunk_offset_bits);
  const AckedWqe entry{.is_send = false, .write_imm = *wc.imm & 0x7FFF'FFFFu};
  if (writes_done_.contains(seq)) {
    // A late original chunk of a delivered message: UC placed it again (see docs/transport.md);
    // acknowledge it so the sender stops resending it.
    ++stats_.duplicates;
    acknowledge(entry, wc, imm.hint, false);
    return;
  }
  const auto it = writes_.find(seq);
  const uint32_t units = (wc.byte_len + config_.unit_size - 1) / config_.unit_size;
  if (it == writes_.end()) {
    // A one-sided WRITE's chunk ahead of its notice (the notice was lost): the NIC placed it,
    // but without the notice nothing records it. Unacknowledged, it goes again as pieces once
    // the sender sees the gap, by then after the notice's retransmission.
    ++stats_.early_writes;
    return;
  }
  if (!it->second.granted || imm.unit_offset + units > it->second.have.size()) {
    ++stats_.malformed;
    return;
  }
  const uint32_t end = imm.unit_offset + units;
  const bool in_order =
      last_write_
          ? (seq == last_write_->seq && imm.unit_offset == last_write_->end_unit) ||
                (imm.unit_offset == 0 && last_write_->complete && seq == last_write_->seq + 1)
          : imm.unit_offset == 0;
  last_write_ =
      WritePosition{.seq = seq, .end_unit = end, .complete = end == it->second.have.size()};
  mark_units(seq, it->second, imm.unit_offset, units);
  acknowledge(entry, wc, imm.hint, !in_order);
}

void Receiver::on_request(uint64_t seq, uint32_t length) {
  if (length < config_.smallest_large_message() || length > config_.max_message_size() ||
      writes_done_.contains(seq) || writes_.contains(seq)) {
    ++stats_.malformed;
    return;
  }
  InWrite& w = writes_[seq];
  w.length = length;
  w.have.assign((length + config_.unit_size - 1) / config_.unit_size, false);
  grant(seq, w);
}

void Receiver::grant(uint64_t seq, InWrite& w) {
  const auto addr = arena_.allocate(w.length);
  if (!addr) {
    waiting_for_arena_.push_back(seq);
    ++stats_.grants_deferred;
    return;
  }
  w.addr = *addr;
  w.granted = true;
  w.memory = arena_memory_.get();
  sender_.send_reply(SendHeader{.type = SendType::write_grant,
                                .message_id = static_cast<uint32_t>(seq) & imm_.message_id_mask(),
                                .argument = arena_region_->rkey,
                                .address = w.addr});
}

void Receiver::grant_waiting() {
  while (!waiting_for_arena_.empty()) {
    const uint64_t seq = waiting_for_arena_.front();
    InWrite& w = writes_.at(seq);
    if (w.length > arena_.free_bytes()) return;
    waiting_for_arena_.pop_front();
    grant(seq, w);
    if (!w.granted) return;  // fragmented: it went back to the queue's end; wait for more space
  }
}

void Receiver::on_piece(const SendHeader& h, uint64_t seq, uint64_t data_addr, uint32_t length) {
  if (writes_done_.contains(seq)) {
    ++stats_.late_pieces;  // the message was delivered: never copy over the application's bytes
    return;
  }
  const auto it = writes_.find(seq);
  if (it == writes_.end() || !it->second.granted || h.argument >= it->second.have.size()) {
    ++stats_.malformed;
    return;
  }
  InWrite& w = it->second;
  const uint64_t offset = uint64_t{h.argument} * config_.unit_size;
  if (length != std::min<uint64_t>(config_.unit_size, w.length - offset)) {
    ++stats_.malformed;
    return;
  }
  if (w.have[h.argument]) {
    ++stats_.duplicates;
    return;
  }
  world::Payload payload;
  slot_memory_->read(data_addr, length, payload);
  if (w.memory != nullptr) w.memory->write(w.addr + offset, payload);  // null: no content
  ++stats_.pieces_placed;
  mark_units(seq, w, h.argument, 1);
}

void Receiver::mark_units(uint64_t seq, InWrite& w, uint32_t first, uint32_t count) {
  for (uint32_t u = first; u < first + count; ++u) {
    if (w.have[u]) continue;
    w.have[u] = true;
    ++w.received;
  }
  while (w.contiguous < w.have.size() && w.have[w.contiguous]) ++w.contiguous;
  if (w.received < w.have.size()) return;
  const uint64_t addr = w.addr;
  const uint64_t length = w.length;
  const bool one_sided = w.one_sided;
  writes_done_.insert(seq);
  writes_.erase(seq);
  if (one_sided) {
    ++stats_.writes_placed;
    return;
  }
  deliver(*arena_memory_, addr, length, true);
  arena_.free(addr, length);
  grant_waiting();
}

void Receiver::deliver(const rnic::HostMemory& memory, uint64_t addr, uint64_t length,
                       bool by_write) {
  ++stats_.messages_delivered;
  stats_.bytes_delivered += length;
  if (handler_) {
    handler_(Delivery{.memory = &memory, .addr = addr, .length = length, .by_write = by_write});
  }
}

// ---- software ACKs ---------------------------------------------------------------------------

void Receiver::acknowledge(const AckedWqe& wqe, const rnic::WorkCompletion& wc, bool hint,
                           bool out_of_order) {
  if (config_.reliability != Reliability::software_uc) return;
  if (wc.ecn_ce) ++stats_.ce_marked_wqes;
  if (!acks_.fits(wqe)) send_ack(AckTrigger::span);
  if (const auto trigger =
          acks_.add(wqe, wc.byte_len, wc.hw_timestamp, hint, out_of_order, wc.ecn_ce)) {
    send_ack(*trigger);
    return;
  }
  if (!ack_timer_.valid()) {
    ack_timer_ = endpoint_.scheduler().after(config_.ack_timer, [this] {
      ack_timer_ = {};
      if (!acks_.empty()) send_ack(AckTrigger::timer);
    });
  }
}

void Receiver::set_ack_coalescing(AckCoalescing coalescing, Time timer) {
  config_.ack_every_wqes = coalescing.wqes;
  config_.ack_every_bytes = coalescing.bytes;
  config_.ack_timer = timer;
  acks_.set_coalescing(coalescing);
}

void Receiver::send_ack(AckTrigger trigger) {
  if (ack_timer_.valid()) {
    endpoint_.scheduler().cancel(ack_timer_);
    ack_timer_ = {};
  }
  SoftAck ack = acks_.take(connection_.peer().connection_id, endpoint_.clock().nic_now(), trigger);
  set_cumulative(ack);
  stats_.ack_triggers = acks_.triggers();
  const bool posted = config_.ack_path == AckPath::data_qp
                          ? sender_.post_ack(ack)
                          : endpoint_.post_ack(connection_.peer(), ack);
  if (posted) ++stats_.acks_sent;
}

void Receiver::set_cumulative(SoftAck& ack) const {
  ack.send_cumulative = static_cast<uint32_t>(sends_seen_.floor());
  // Large messages finish in write-sequence order as a rule (grants go in request order), so
  // the first unfinished one and its contiguous units cover what its earlier ACKs named.
  const uint64_t first_open = writes_done_.floor();
  const auto it = writes_.find(first_open);
  const uint32_t units = it == writes_.end() ? 0 : it->second.contiguous;
  ack.write_cumulative =
      imm_.encode(WriteImm{.message_id = static_cast<uint32_t>(first_open) & imm_.message_id_mask(),
                           .unit_offset = units});
}

void Receiver::on_ack_send(const rnic::WorkCompletion& wc, uint64_t slot_addr) {
  std::array<std::byte, kSoftAckMaxSize> bytes{};
  const uint32_t length =
      std::min<uint32_t>(wc.byte_len - static_cast<uint32_t>(kSendHeaderSize), bytes.size());
  slot_memory_->copy_out(slot_addr + kSendHeaderSize, std::span(bytes).first(length));
  const auto ack = decode_soft_ack(std::span(bytes).first(length));
  // The peer names this connection by the id we gave it, as on the UD QP.
  if (!ack || ack.value.connection != connection_.id()) {
    ++stats_.malformed;
    return;
  }
  connection_.on_ack(ack.value, wc.hw_timestamp);
}

}  // namespace bifrost::transport
