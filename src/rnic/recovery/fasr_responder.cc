#include "bifrost/rnic/recovery/fasr_responder.h"

#include <algorithm>

#include "bifrost/wire/headers.h"

namespace bifrost::rnic::recovery {
namespace {

bool after(uint32_t a, uint32_t b) {
  return wire::psn_diff(a, b) > 0;
}

}  // namespace

FasrResponder::FasrResponder(std::shared_ptr<FasrPool> pool) : pool_(std::move(pool)) {}

FasrResponder::~FasrResponder() {
  if (unit_ != FasrPool::kNull) pool_->release_unit(unit_);
}

FasrResponder::Path FasrResponder::path() const {
  if (unit_ == FasrPool::kNull) return Path::normal;
  return pool_->unit(unit_).slow ? Path::slow : Path::fast;
}

uint8_t FasrResponder::lost_cnt() const {
  return unit_ == FasrPool::kNull ? 0 : pool_->unit(unit_).lost_cnt;
}
bool FasrResponder::overflow() const {
  return unit_ != FasrPool::kNull && pool_->unit(unit_).overflow;
}
uint32_t FasrResponder::sack_high() const {
  return unit_ == FasrPool::kNull ? 0 : pool_->unit(unit_).sack_high;
}
uint16_t FasrResponder::compression() const {
  return unit_ == FasrPool::kNull ? 0 : pool_->unit(unit_).compression;
}
uint32_t FasrResponder::blocks() const {
  return unit_ == FasrPool::kNull ? 0 : pool_->unit(unit_).block_count;
}

uint64_t FasrResponder::nic_state_bits() const {
  return fasr_unit_pointer_bits(pool_->config()) + 4;  // gbn_, nak_sent_, fnack_sent_, went_slow_
}

uint32_t FasrResponder::sack_info() const {
  return wire::encode_fasr_info({lost_cnt(), overflow(), false});
}

std::optional<uint32_t> FasrResponder::ack_info() const {
  if (unit_ == FasrPool::kNull) return std::nullopt;
  return sack_info();
}

bool FasrResponder::received(uint32_t psn) const {
  // Fast path: RCV-NXT is the only hole.
  return !pool_->unit(unit_).slow || pool_->recorded(unit_, psn);
}

bool FasrResponder::can_record(uint32_t psn) const {
  if (unit_ == FasrPool::kNull) {
    if (pool_->free_units() == 0) return false;
    // A gap of more than one PSN goes straight to the slow path: it needs the blocks from
    // RCV-NXT + 1 to psn.
    const bool gap = wire::psn_diff(psn, rcv_nxt_) > 1;
    return !gap || pool_->blocks_to_start(rcv_nxt_, rcv_nxt_, psn) <= pool_->free_blocks();
  }
  const FasrUnit& u = pool_->unit(unit_);
  if (!u.slow) {
    if (psn == wire::psn_add(u.sack_high, 1)) return true;
    // Into the slow path: the run after RCV-NXT, up to sack-high, compresses or takes bits.
    return pool_->blocks_to_start(rcv_nxt_, u.sack_high, psn) <= pool_->free_blocks();
  }
  if (u.block_count == 0 && u.compression == 0) {
    return pool_->blocks_to_start(rcv_nxt_, rcv_nxt_, psn) <= pool_->free_blocks();
  }
  return pool_->blocks_to_cover(unit_, psn) <= pool_->free_blocks();
}

Arrival FasrResponder::classify(uint32_t psn, uint32_t expected, uint32_t span) {
  rcv_nxt_ = expected;
  const int32_t d = wire::psn_diff(psn, expected);
  if (d < 0) return Arrival::duplicate;
  if (d == 0) return Arrival::in_order;
  if (unit_ != FasrPool::kNull && !after(psn, pool_->unit(unit_).sack_high)) {
    if (received(psn)) return Arrival::duplicate;
    drop_reason_ = gbn_ ? DropReason::go_back : DropReason::fnack;
    return Arrival::drop;
  }
  if (gbn_) {
    drop_reason_ = DropReason::go_back;
    return Arrival::drop;
  }
  // The last PSN a READ request occupies needs the most bitmap blocks.
  if (!can_record(wire::psn_add(psn, span - 1))) {
    drop_reason_ = unit_ == FasrPool::kNull && pool_->free_units() == 0 ? DropReason::no_unit
                                                                        : DropReason::no_block;
    return Arrival::drop;
  }
  return Arrival::out_of_order;
}

void FasrResponder::add_lost(uint32_t gap) {
  FasrUnit& u = pool_->unit(unit_);
  if (u.overflow) return;
  const uint32_t lost = u.lost_cnt + gap;
  u.lost_cnt = static_cast<uint8_t>(std::min<uint32_t>(lost, FasrPool::kMaxLostCnt));
  u.overflow = lost > FasrPool::kMaxLostCnt;
}

void FasrResponder::record(uint32_t psn, uint32_t span) {
  // An out-of-order READ request (R-READ) holds one PSN per response: each is recorded as if
  // it had arrived, the first opening or extending the recovery episode, the rest contiguous.
  for (uint32_t i = 0; i < span; ++i) record_one(wire::psn_add(psn, i));
}

void FasrResponder::record_one(uint32_t psn) {
  if (unit_ == FasrPool::kNull) {
    unit_ = pool_->allocate_unit();
    went_slow_ = false;
    FasrUnit& u = pool_->unit(unit_);
    u.sack_high = psn;
    add_lost(static_cast<uint32_t>(wire::psn_diff(psn, rcv_nxt_)));
    if (u.lost_cnt > 1 || u.overflow) {
      u.slow = went_slow_ = true;
      pool_->start_bitmap(unit_, rcv_nxt_, rcv_nxt_);
      pool_->set(unit_, psn);
    }
    pool_->count_recorded(u.slow);
    return;
  }
  FasrUnit& u = pool_->unit(unit_);
  const uint32_t gap = static_cast<uint32_t>(wire::psn_diff(psn, u.sack_high)) - 1;
  if (!u.slow) {
    if (gap > 0) {
      // Into the slow path: the packets after RCV-NXT, up to sack-high, all arrived.
      u.slow = went_slow_ = true;
      pool_->start_bitmap(unit_, rcv_nxt_, u.sack_high);
      pool_->set(unit_, psn);
    }
  } else {
    if (u.block_count == 0 && u.compression == 0) u.bitmap_base = wire::psn_add(rcv_nxt_, 1);
    pool_->set(unit_, psn);
  }
  add_lost(gap);
  u.sack_high = psn;
  pool_->count_recorded(u.slow);
}

void FasrResponder::finish() {
  if (went_slow_) {
    ++slow_recoveries_;
  } else {
    ++fast_recoveries_;
  }
  pool_->count_recovery(went_slow_);
  pool_->release_unit(unit_);
  unit_ = FasrPool::kNull;
  gbn_ = false;
}

uint32_t FasrResponder::advance(uint32_t expected, uint32_t span) {
  nak_sent_ = false;
  fnack_sent_ = false;
  uint32_t next = wire::psn_add(expected, span);
  if (unit_ == FasrPool::kNull) {
    gbn_ = false;  // a go-back-N episode without a unit ends with the expected PSN
    return next;
  }
  FasrUnit& u = pool_->unit(unit_);
  if (!u.slow) {
    // Fast path: the retransmission of RCV-NXT was the only thing missing.
    next = wire::psn_add(u.sack_high, 1);
    finish();
    return next;
  }
  if (!u.overflow)
    u.lost_cnt = static_cast<uint8_t>(u.lost_cnt - std::min<uint32_t>(u.lost_cnt, span));
  const uint32_t run_start = wire::psn_add(u.bitmap_base, wire::kPsnMask + 1 - u.compression);
  if (u.compression > 0 && next == run_start) {
    next = u.bitmap_base;
    u.compression = 0;
  }
  while (pool_->test(unit_, next)) next = wire::psn_add(next, 1);
  pool_->release_before(unit_, next);
  if (after(next, u.sack_high)) {
    finish();
  } else if (u.lost_cnt == 1 && !u.overflow) {
    // Only RCV-NXT is missing again: back to the fast path, the bitmap goes back to the pool.
    pool_->release_blocks(unit_);
    u.slow = false;
    u.compression = 0;
  }
  return next;
}

Feedback FasrResponder::feedback(Arrival arrival) {
  if (arrival != Arrival::drop) return selective_feedback(arrival);
  if (drop_reason_ == DropReason::fnack) {
    if (fnack_sent_) return Feedback::none;
    fnack_sent_ = true;
    return Feedback::fnack;
  }
  if (drop_reason_ == DropReason::no_unit || drop_reason_ == DropReason::no_block) {
    gbn_ = true;
    pool_->count_fallback(drop_reason_ == DropReason::no_unit);
  }
  if (nak_sent_) return Feedback::none;
  nak_sent_ = true;
  return Feedback::nak_sequence;
}

}  // namespace bifrost::rnic::recovery
