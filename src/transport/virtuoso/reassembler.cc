#include "reassembler.h"

#include <algorithm>
#include <array>

#include "advert.h"
#include "bifrost/core/error.h"
#include "bifrost/wire/byte_order.h"

namespace bifrost::transport::virtuoso {

namespace {
// A staging receive's wr_id: generation (16 bits) | path (16 bits) | slot (32 bits).
uint64_t staging_wr_id(uint16_t generation, uint32_t path, uint32_t slot) {
  return uint64_t{generation} << 48 | uint64_t{path} << 32 | slot;
}
constexpr uint64_t kSequenceSpan = uint64_t{1} << 31;
}  // namespace

Reassembler::Reassembler(MpConnection& connection)
    : c_(connection),
      slot_bytes_(std::max(connection.config().small_send, kTailBytes)),
      generation_(connection.config().paths, 0) {
  const VirtuosoConfig& config = c_.config();
  staging_ = c_.endpoint().make_memory(slot_bytes_ * config.receive_slots * config.paths);
  staging_region_ =
      &c_.endpoint().device().reg_mr(c_.endpoint().pd(), staging_->base(), staging_->size(),
                                     rnic::Access::local_write, staging_.get());
}

Reassembler::~Reassembler() {
  if (advert_timer_.valid()) c_.endpoint().scheduler().cancel(advert_timer_);
  c_.endpoint().device().dereg_mr(staging_region_->lkey);
}

uint64_t Reassembler::slot_addr(uint32_t path, uint32_t slot) const {
  return staging_->base() + (uint64_t{path} * c_.config().receive_slots + slot) * slot_bytes_;
}

void Reassembler::post_slot(uint32_t path, uint32_t slot) {
  rnic::RecvWr wr;
  wr.wr_id = staging_wr_id(generation_[path], path, slot);
  wr.sge = rnic::Sge{.addr = slot_addr(path, slot),
                     .length = static_cast<uint32_t>(slot_bytes_),
                     .lkey = staging_region_->lkey};
  c_.path_qp(path).post_recv(wr);
  ++c_.mutable_stats().receives_posted;
}

void Reassembler::start() {
  for (uint32_t p = 0; p < c_.config().paths; ++p) post_receives(p);
}

void Reassembler::forget_path(uint32_t path) {
  ++generation_[path];
  // A small MP SEND held in a slot of this path stays valid: the slot is not reposted until
  // delivery, and the reposting below skips it.
}

void Reassembler::post_receives(uint32_t path) {
  for (uint32_t slot = 0; slot < c_.config().receive_slots; ++slot) {
    const bool held = std::any_of(arrivals_.begin(), arrivals_.end(), [&](const auto& a) {
      return !a.second.large && a.second.path == path && a.second.slot == slot;
    });
    if (!held) post_slot(path, slot);
  }
}

void Reassembler::post_recv(uint64_t wr_id, const MessageBuffer& buffer) {
  const uint64_t sequence = next_recv_++;
  Recv& r = recvs_[sequence];
  r.wr_id = wr_id;
  r.buffer = buffer;
  send_advert(sequence, r);
  arm_advert_timer();
  deliver();
}

void Reassembler::advertise_posted() {
  for (const auto& [sequence, recv] : recvs_) send_advert(sequence, recv);
  if (!recvs_.empty()) arm_advert_timer();
}

void Reassembler::arm_advert_timer() {
  if (advert_timer_.valid()) return;
  advert_rounds_ = 0;
  advert_timer_ =
      c_.endpoint().scheduler().after(c_.config().control_interval, [this] { repeat_adverts(); });
}

void Reassembler::send_advert(uint64_t sequence, const Recv& recv) {
  if (!c_.connected()) return;  // connect() advertises what was posted before it
  const auto bytes = encode_advert(Advert{.connection = c_.peer().connection_id,
                                          .sequence = sequence,
                                          .addr = recv.buffer.addr,
                                          .length = recv.buffer.length,
                                          .rkey = recv.buffer.region->rkey});
  c_.endpoint().post_ud_message(c_.peer(), bytes);
  ++c_.mutable_stats().adverts_sent;
}

void Reassembler::repeat_adverts() {
  advert_timer_ = {};
  bool pending = false;
  for (const auto& [sequence, recv] : recvs_) {
    if (recv.acked) continue;
    pending = true;
    if (advert_rounds_ < c_.config().control_attempts) send_advert(sequence, recv);
  }
  ++advert_rounds_;
  if (pending && advert_rounds_ <= c_.config().control_attempts) {
    advert_timer_ =
        c_.endpoint().scheduler().after(c_.config().control_interval, [this] { repeat_adverts(); });
  }
}

void Reassembler::on_advert_ack(uint64_t sequence) {
  const auto it = recvs_.find(sequence);
  if (it != recvs_.end()) it->second.acked = true;
}

std::optional<uint64_t> Reassembler::sequence_of(uint32_t imm) const {
  const uint64_t low = imm & (kSequenceSpan - 1);
  const uint64_t ahead = (low - next_deliver_) & (kSequenceSpan - 1);
  if (ahead >= kSequenceSpan / 2) return std::nullopt;  // behind: delivered already
  return next_deliver_ + ahead;
}

void Reassembler::on_receive(const rnic::WorkCompletion& wc) {
  const auto generation = static_cast<uint16_t>(wc.wr_id >> 48);
  const auto path = static_cast<uint32_t>((wc.wr_id >> 32) & 0xFFFF);
  const auto slot = static_cast<uint32_t>(wc.wr_id);
  if (path >= generation_.size() || generation != generation_[path]) return;  // a reset's flush
  if (wc.status != rnic::WcStatus::success) return;  // flushed: the QP is being recovered
  const std::optional<uint64_t> sequence = wc.imm ? sequence_of(*wc.imm) : std::nullopt;
  if (!sequence || arrivals_.contains(*sequence)) {
    ++c_.mutable_stats().duplicates_dropped;
    post_slot(path, slot);
    return;
  }
  Arrival a{
      .length = wc.byte_len, .large = (*wc.imm & kLargeTail) != 0, .path = path, .slot = slot};
  if (a.large) {
    std::array<std::byte, kTailBytes> length{};
    staging_->copy_out(slot_addr(path, slot), length);
    a.length = wire::detail::load_be64(length.data());
    post_slot(path, slot);
  }
  arrivals_.emplace(*sequence, a);
  deliver();
}

void Reassembler::deliver() {
  while (true) {
    const auto arrival = arrivals_.find(next_deliver_);
    const auto recv = recvs_.find(next_deliver_);
    if (arrival == arrivals_.end() || recv == recvs_.end()) return;
    const Arrival a = arrival->second;
    const Recv r = recv->second;
    arrivals_.erase(arrival);
    recvs_.erase(recv);
    ++next_deliver_;
    const bool fits = a.length <= r.buffer.length;
    if (!a.large) {
      const uint64_t length = std::min(a.length, r.buffer.length);
      if (length > 0 && r.buffer.region->memory != nullptr) {
        world::Payload bytes;
        staging_->read(slot_addr(a.path, a.slot), static_cast<uint32_t>(length), bytes);
        r.buffer.region->memory->write(r.buffer.addr, bytes);
        c_.mutable_stats().bytes_copied += length;
      }
      // The slot goes back unless its QP is down (then post_receives refills it at bring-up).
      if (c_.path_qp(a.path).state() == rnic::QpState::rts) post_slot(a.path, a.slot);
    }
    ++c_.mutable_stats().mp_receives;
    if (handler_) handler_(MpReceive{.wr_id = r.wr_id, .bytes = a.length, .ok = fits});
  }
}

}  // namespace bifrost::transport::virtuoso
