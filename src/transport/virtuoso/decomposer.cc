// The decomposer (§3.3): MP WRs into per-path ranges of the load balancer's sizes, ranges into
// WRs no larger than the chunk policy's chunk, posted round-robin over the path QPs; MP
// completions once every constituent WR completed.
#include <algorithm>

#include "bifrost/core/error.h"
#include "bifrost/transport/virtuoso/mp_connection.h"
#include "bifrost/wire/byte_order.h"
#include "reassembler.h"

namespace bifrost::transport::virtuoso {

namespace {
uint32_t send_immediate(uint64_t sequence, bool tail) {
  return static_cast<uint32_t>(sequence & (kLargeTail - 1)) | (tail ? kLargeTail : 0);
}
// Large-SEND tails whose 8-byte length can be in flight at once (slots in the own memory).
constexpr uint64_t kTailSlots = 4096;
}  // namespace

uint64_t MpConnection::open_wr(const MpWr& wr, Stage stage) {
  const uint64_t mp = next_mp_++;
  Open& o = open_[mp];
  o.wr = wr;
  o.stage = stage;
  o.started = endpoint_.scheduler().now();
  if (wr.op == MpOp::send) {
    o.send_sequence = next_send_sequence_++;
    sends_by_sequence_[*o.send_sequence] = mp;
  }
  return mp;
}

uint32_t MpConnection::next_path() {
  const uint32_t p = round_robin_;
  round_robin_ = (round_robin_ + 1) % path_count();
  return p;
}

void MpConnection::start(uint64_t mp) {
  Open& o = open_.at(mp);
  const MpWr& wr = o.wr;
  const uint32_t lkey = wr.local.region->lkey;
  switch (wr.op) {
    case MpOp::write:
      decompose(mp, rnic::WrOpcode::rdma_write, wr.local.addr, lkey, wr.remote.addr, wr.remote.rkey,
                wr.local.length);
      break;
    case MpOp::read:
      decompose(mp, rnic::WrOpcode::rdma_read, wr.local.addr, lkey, wr.remote.addr, wr.remote.rkey,
                wr.local.length);
      break;
    case MpOp::send:
      if (wr.local.length <= config_.small_send) {
        ++stats_.small_sends;
        o.uncut = wr.local.length;
        enqueue(next_path(), Range{.mp = mp,
                                   .opcode = rnic::WrOpcode::send_with_imm,
                                   .local = wr.local.addr,
                                   .lkey = lkey,
                                   .length = wr.local.length,
                                   .imm = send_immediate(*o.send_sequence, false)});
      } else {
        ++stats_.large_sends;
        o.stage = Stage::waiting;
        start_large_send(mp);
      }
      break;
  }
  schedule_pump();
}

void MpConnection::decompose(uint64_t mp, rnic::WrOpcode opcode, uint64_t local, uint32_t lkey,
                             uint64_t remote, uint32_t rkey, uint64_t length) {
  open_.at(mp).uncut = length;
  const std::vector<uint64_t> shares = balancer_->split(length, capacity_, config_.block);
  uint64_t offset = 0;
  for (uint32_t p = 0; p < shares.size(); ++p) {
    if (shares[p] == 0) continue;
    enqueue(p, Range{.mp = mp,
                     .opcode = opcode,
                     .local = local + offset,
                     .lkey = lkey,
                     .remote = remote + offset,
                     .rkey = rkey,
                     .length = shares[p],
                     .imm = std::nullopt});
    offset += shares[p];
  }
  if (offset != length)
    throw Error("virtuoso: the load balancer split {} of {} bytes", offset, length);
}

void MpConnection::enqueue(uint32_t path, const Range& range) {
  state_[path].queue.push_back(range);
}

void MpConnection::on_advert(uint64_t sequence, RemoteAddress target, uint64_t length) {
  const auto open = sends_by_sequence_.find(sequence);
  if (open == sends_by_sequence_.end() && sequence < next_send_sequence_) return;  // done
  adverts_[sequence] = {target, length};
  if (open != sends_by_sequence_.end()) start_large_send(open->second);
}

void MpConnection::start_large_send(uint64_t mp) {
  Open& o = open_.at(mp);
  const auto advert = adverts_.find(*o.send_sequence);
  if (o.stage != Stage::waiting || advert == adverts_.end() || probe_) return;
  o.target = advert->second.first;
  if (o.wr.local.length > advert->second.second) {
    // Longer than the MP RECV's buffer: no WRITE, the tail tells the receiver, both fail.
    o.failed = true;
    post_tail(mp);
    return;
  }
  o.stage = Stage::moving;
  decompose(mp, rnic::WrOpcode::rdma_write, o.wr.local.addr, o.wr.local.region->lkey, o.target.addr,
            o.target.rkey, o.wr.local.length);
  schedule_pump();
}

void MpConnection::post_tail(uint64_t mp) {
  Open& o = open_.at(mp);
  o.stage = Stage::tail;
  // Every WRITE is acknowledged (RC), so every byte is in the receiver's buffer: the empty
  // SEND may go on any path now. It carries the length (8 bytes) the MP RECV completes with.
  const uint64_t addr =
      own_memory_->base() + config_.probe_bytes + (*o.send_sequence % kTailSlots) * kTailBytes;
  world::Payload length;
  length.bytes.resize(kTailBytes);
  wire::detail::store_be64(length.bytes.data(), o.wr.local.length);
  length.length = kTailBytes;
  own_memory_->write(addr, length);
  o.uncut = kTailBytes;
  enqueue(next_path(), Range{.mp = mp,
                             .opcode = rnic::WrOpcode::send_with_imm,
                             .local = addr,
                             .lkey = own_region_->lkey,
                             .length = kTailBytes,
                             .imm = send_immediate(*o.send_sequence, true)});
  schedule_pump();
}

void MpConnection::schedule_pump() {
  if (pump_scheduled_ || state_.empty()) return;
  pump_scheduled_ = true;
  pump_timer_ = endpoint_.scheduler().at(endpoint_.scheduler().now(), [this] { pump(); });
}

void MpConnection::pump() {
  pump_scheduled_ = false;
  pump_timer_ = {};
  if (chunks_->iterations()) {
    // The next iteration starts once the last one's WRs have all completed.
    for (const PathState& s : state_) {
      if (s.in_flight > 0) return;
    }
    for (uint32_t p = 0; p < path_count(); ++p) post_next(p);
    return;
  }
  // One WR per path per round, the rounds starting one path further each time.
  for (bool progress = true; progress;) {
    progress = false;
    for (uint32_t k = 0; k < path_count(); ++k) {
      if (post_next((round_robin_ + k) % path_count())) progress = true;
    }
  }
}

bool MpConnection::post_next(uint32_t path) {
  PathState& s = state_[path];
  const uint32_t limit = std::min(chunks_->in_flight_per_path(), config_.max_send_wr);
  if (!s.ready || s.queue.empty() || s.in_flight >= limit) return false;
  Range& front = s.queue.front();
  uint64_t chunk = std::max(chunks_->chunk(), config_.block);
  chunk -= chunk % config_.block;
  const uint64_t length = front.imm ? front.length : std::min(front.length, chunk);
  Posted posted{.range = front, .path = path};
  posted.range.length = length;
  front.local += length;
  front.remote += length;
  front.length -= length;
  if (front.length == 0) s.queue.pop_front();

  rnic::SendWr wr;
  wr.wr_id = next_wr_id_++;
  wr.opcode = posted.range.opcode;
  wr.sge = rnic::Sge{.addr = posted.range.local,
                     .length = static_cast<uint32_t>(length),
                     .lkey = posted.range.lkey};
  wr.remote_addr = posted.range.remote;
  wr.rkey = posted.range.rkey;
  wr.imm = posted.range.imm.value_or(0);
  s.path.qp->post_send(wr);
  posted_.emplace(wr.wr_id, posted);
  ++s.in_flight;
  Open& o = open_.at(posted.range.mp);
  ++o.parts_open;
  o.uncut -= length;
  ++stats_.wrs_posted;
  return true;
}

void MpConnection::requeue(const Posted& posted) {
  state_[posted.path].queue.push_front(posted.range);
  Open& o = open_.at(posted.range.mp);
  --o.parts_open;
  o.uncut += posted.range.length;
}

void MpConnection::on_part_done(const Posted& posted, const rnic::WorkCompletion& wc) {
  --state_[posted.path].in_flight;
  Open& o = open_.at(posted.range.mp);
  const uint64_t length = posted.range.length;
  switch (wc.status) {
    case rnic::WcStatus::success:
      if (!o.probe) chunks_->on_success(length);
      --o.parts_open;
      ++o.parts_done;
      break;
    case rnic::WcStatus::retry_exceeded:
      ++stats_.retry_exceeded;
      if (!o.probe) chunks_->on_retry_exceeded(length);
      [[fallthrough]];
    case rnic::WcStatus::flush_error:
      // The WR's data goes again once its QP is back on the same path.
      requeue(posted);
      ++stats_.wrs_reposted;
      on_path_failed(posted.path);
      return;
    default:
      o.failed = true;
      --o.parts_open;
      drop_queued(posted.range.mp);
      break;
  }
  if (o.uncut == 0 && o.parts_open == 0) advance(posted.range.mp);
  schedule_pump();
}

void MpConnection::drop_queued(uint64_t mp) {
  for (PathState& s : state_) {
    std::erase_if(s.queue, [mp](const Range& r) { return r.mp == mp; });
  }
  open_.at(mp).uncut = 0;
}

void MpConnection::advance(uint64_t mp) {
  Open& o = open_.at(mp);
  if (o.wr.op == MpOp::send && o.stage == Stage::moving && !o.failed &&
      o.wr.local.length > config_.small_send) {
    post_tail(mp);
    return;
  }
  finish(mp);
}

void MpConnection::finish(uint64_t mp) {
  const auto it = open_.find(mp);
  const Open o = it->second;
  open_.erase(it);
  if (o.probe) {
    on_probe_done(o);
    return;
  }
  if (o.send_sequence) {
    sends_by_sequence_.erase(*o.send_sequence);
    adverts_.erase(*o.send_sequence);
  }
  ++stats_.mp_completions;
  if (!o.failed) stats_.bytes += o.wr.local.length;
  if (on_completion_) {
    on_completion_(MpCompletion{.wr_id = o.wr.wr_id,
                                .op = o.wr.op,
                                .ok = !o.failed,
                                .bytes = o.wr.local.length,
                                .parts = o.parts_done});
  }
}

}  // namespace bifrost::transport::virtuoso
