#include "bifrost/rnic/recovery/fasr_requester.h"

#include <utility>

#include "bifrost/wire/headers.h"

namespace bifrost::rnic::recovery {
namespace {

bool after(uint32_t a, uint32_t b) {
  return wire::psn_diff(a, b) > 0;
}

}  // namespace

FasrRequester::FasrRequester(const RecoveryConfig& config, std::shared_ptr<FasrPool> pool)
    : config_(config), pool_(std::move(pool)) {}

FasrRequester::~FasrRequester() {
  release();
}

bool FasrRequester::slow() const {
  return recovering() && unit().slow;
}
uint8_t FasrRequester::lost_cnt() const {
  return recovering() ? unit().lost_cnt : 0;
}
bool FasrRequester::overflow() const {
  return recovering() && unit().overflow;
}
uint32_t FasrRequester::sack_high() const {
  return recovering() ? unit().sack_high : 0;
}
uint32_t FasrRequester::blocks() const {
  return recovering() ? unit().block_count : 0;
}

void FasrRequester::release() {
  if (unit_ == FasrPool::kNull) return;
  pool_->release_unit(unit_);
  unit_ = FasrPool::kNull;
}

void FasrRequester::advance(uint32_t una) {
  if (wire::psn_before(una_, una)) fnack_armed_ = go_back_armed_ = true;
  una_ = una;  // adopted even when "behind": the first PSN of a QP is arbitrary
  if (!recovering()) return;
  FasrUnit& u = unit();
  if (after(una, u.sack_high)) {
    release();  // UNACK passed sack-high: recovery is over
    return;
  }
  if (!u.slow) return;
  // UNACK came into or past the compression run: what is left of it starts after UNACK.
  const uint32_t run_start = wire::psn_add(u.bitmap_base, wire::kPsnMask + 1 - u.compression);
  if (u.compression > 0 && after(una, run_start)) {
    const int32_t left = wire::psn_diff(u.bitmap_base, una) - 1;
    u.compression = static_cast<uint16_t>(left > 0 ? left : 0);
  }
  pool_->release_before(unit_, una);
}

void FasrRequester::on_ack(uint32_t una) {
  advance(una);
}

void FasrRequester::on_aack(uint8_t lost_cnt, bool overflow) {
  if (!recovering()) return;
  // An AACK is for the falls of lost-cnt that arriving retransmissions cause. A rise is a new
  // loss, which the SACK of the packet that showed it reports with its gap; an AACK that shows
  // the rise first (that SACK was lost, or is behind it) is not adopted, so that the next SACK
  // beyond sack-high still sees lost-cnt grow and resends its gap.
  const FasrUnit& u = unit();
  if (!u.overflow && (overflow || lost_cnt > u.lost_cnt)) return;
  adopt(Carried{true, lost_cnt, overflow});
}

void FasrRequester::adopt(const Carried& carried) {
  FasrUnit& u = unit();
  u.lost_cnt = carried.lost_cnt;
  u.overflow = carried.overflow;
  if (u.slow && !u.overflow && u.lost_cnt <= 1) {
    // Only UNACK is missing again: back to the fast path, the bitmap goes back to the pool.
    pool_->release_blocks(unit_);
    u.slow = false;
    u.compression = 0;
  }
}

void FasrRequester::on_nak(uint32_t psn, uint32_t snd_max) {
  // The receiver fell back to go-back-N: its SACK state is gone, and so is ours.
  release();
  queue_.clear();
  resend(psn, snd_max);
}

void FasrRequester::on_sack_state(uint8_t lost_cnt, bool overflow) {
  carried_ = Carried{true, lost_cnt, overflow};
}

void FasrRequester::on_sack(uint32_t una, uint32_t sacked, uint32_t snd_max) {
  const Carried carried = std::exchange(carried_, Carried{});
  advance(una);
  if (!after(sacked, una)) return;
  carried_ = carried;
  if (!recovering()) {
    start_recovery(una, sacked, snd_max);
  } else {
    continue_recovery(sacked, snd_max);
  }
  carried_ = Carried{};
}

void FasrRequester::fall_back(uint32_t snd_max) {
  pool_->count_sender_fallback();
  release();
  queue_.clear();
  go_back_armed_ = false;
  resend(una_, snd_max);
}

void FasrRequester::start_recovery(uint32_t una, uint32_t sacked, uint32_t snd_max) {
  if (!go_back_armed_) return;  // already went back to UNACK for want of a unit
  unit_ = pool_->allocate_unit();
  if (unit_ == FasrPool::kNull) {
    fall_back(snd_max);
    return;
  }
  pool_->count_sender_unit();
  FasrUnit& u = unit();
  u.sack_high = sacked;
  u.lost_cnt = carried_.lost_cnt;
  u.overflow = carried_.overflow;
  // [UNACK, SACK) goes at once, whatever lost-cnt says.
  resend(una, sacked);
  if (!u.overflow && u.lost_cnt <= 1) return;  // fast path: no bitmap
  // Slow path from the start: nothing after UNACK is known to have arrived but the SACK.
  if (pool_->blocks_to_start(una, una, sacked) > pool_->free_blocks()) {
    fall_back(snd_max);
    return;
  }
  u.slow = true;
  pool_->start_bitmap(unit_, una, una);
  pool_->set(unit_, sacked);
}

bool FasrRequester::go_slow() {
  FasrUnit& u = unit();
  if (pool_->blocks_to_start(una_, u.sack_high, wire::psn_add(u.sack_high, 1)) >
      pool_->free_blocks()) {
    return false;
  }
  u.slow = true;
  pool_->start_bitmap(unit_, una_, u.sack_high);
  return true;
}

bool FasrRequester::mark(uint32_t psn) {
  if (wire::psn_diff(psn, unit().bitmap_base) < 0) return true;  // in the compression run
  if (pool_->blocks_to_cover(unit_, psn) > pool_->free_blocks()) return false;
  pool_->set(unit_, psn);
  return true;
}

void FasrRequester::continue_recovery(uint32_t sacked, uint32_t snd_max) {
  FasrUnit& u = unit();
  if (!after(sacked, u.sack_high)) {
    // A SACK overtaken by a later one: nothing new, unless the bitmap is in use.
    if (u.slow && !mark(sacked)) fall_back(snd_max);
    return;
  }
  const uint32_t gap_from = wire::psn_add(u.sack_high, 1);
  // New losses show as a gap with a grown lost-cnt; overflow hides the count, so every gap is
  // taken as lost (the sender "no longer needs lost-cnt to increase").
  const bool lost = gap_from != sacked && (carried_.overflow || carried_.lost_cnt > u.lost_cnt);
  if (lost) {
    resend(gap_from, sacked);
    if (!u.slow && !go_slow()) {
      fall_back(snd_max);
      return;
    }
  } else if (u.slow) {
    // The gap arrived and only its SACKs were lost.
    for (uint32_t p = gap_from; p != sacked; p = wire::psn_add(p, 1)) {
      if (!mark(p)) {
        fall_back(snd_max);
        return;
      }
    }
  }
  if (unit().slow && !mark(sacked)) {
    fall_back(snd_max);
    return;
  }
  unit().sack_high = sacked;
  // A rise without a gap is a SACK overtaken by the AACK of a fall (reordered on the way back):
  // the receiver's count is lower now, and the fast path keeps no bitmap for lost-cnt > 1.
  const bool stale_rise = !lost && (carried_.overflow || carried_.lost_cnt > unit().lost_cnt);
  if (stale_rise && !unit().slow) return;
  adopt(carried_);
}

void FasrRequester::on_fnack(uint32_t una, uint32_t snd_max) {
  advance(una);
  if (!fnack_armed_) return;
  fnack_armed_ = false;
  ++early_timeouts_;
  time_out(una, snd_max);
}

void FasrRequester::on_timeout(uint32_t una, uint32_t snd_max) {
  time_out(una, snd_max);
}

void FasrRequester::time_out(uint32_t una, uint32_t snd_max) {
  queue_.clear();
  const uint32_t lost = lost_cnt();
  if (lost == 0 && !overflow()) {
    resend(una, snd_max);  // lost-cnt 0: the whole window was lost, go back to UNACK
    return;
  }
  resend(una, wire::psn_add(una, 1));
  if (lost == 1 && !overflow()) return;  // only UNACK, no bitmap
  const FasrUnit& u = unit();
  if (!u.slow) return;  // no bitmap held: everything after UNACK up to sack-high arrived
  // lost-cnt > 1: every PSN between UNACK and sack-high the bitmap does not hold.
  ++bitmap_queries_;
  for (uint32_t p = wire::psn_add(una, 1); !after(p, u.sack_high); p = wire::psn_add(p, 1)) {
    if (pool_->recorded(unit_, p)) continue;
    if (!queue_.empty() && queue_.back().to == p) {
      queue_.back().to = wire::psn_add(p, 1);
    } else {
      resend(p, wire::psn_add(p, 1));
    }
  }
}

std::optional<uint32_t> FasrRequester::next_retransmission(uint32_t una, uint32_t snd_max) {
  while (!queue_.empty()) {
    Range& r = queue_.front();
    if (wire::psn_before(r.from, una)) r.from = una;
    if (wire::psn_before(snd_max, r.to)) r.to = snd_max;
    if (!wire::psn_before(r.from, r.to)) {
      queue_.pop_front();
      continue;
    }
    const uint32_t psn = r.from;
    r.from = wire::psn_add(r.from, 1);
    // On the slow path a PSN SACKed since it was queued is skipped; the fast path has no
    // bitmap to ask.
    if (slow() && after(psn, una) && pool_->recorded(unit_, psn)) continue;
    return psn;
  }
  return std::nullopt;
}

bool FasrRequester::may_send_new(uint32_t in_flight) const {
  return in_flight < config_.bdp_packets;
}

uint64_t FasrRequester::nic_state_bits() const {
  return fasr_unit_pointer_bits(pool_->config()) + 2;  // fnack_armed_, go_back_armed_
}

Time FasrRequester::timeout(uint32_t in_flight, Time /*qp_timeout*/) const {
  return in_flight <= config_.rto_low_threshold ? config_.rto_low : config_.rto_high;
}

}  // namespace bifrost::rnic::recovery
