#include "bifrost/rnic/recovery/fasr_requester.h"

#include "bifrost/wire/headers.h"

namespace bifrost::rnic::recovery {
FasrRequester::FasrRequester(const RecoveryConfig& config)
    : config_(config), sacked_(config.bdp_packets) {}

void FasrRequester::on_ack(uint32_t una) {
  const bool moved = wire::psn_before(una_, una);
  if (moved && recovering_ && !overflow_) {
    // The receiver's lost-cnt fell by the holes this ACK passed (retransmissions arrived).
    uint32_t n = 0;
    for (uint32_t p = una_; wire::psn_before(p, una) && lost_cnt_ > 0 && n < config_.bdp_packets;
         p = wire::psn_add(p, 1), ++n) {
      if (!sacked_.in_window(p) || !sacked_.test(p)) --lost_cnt_;
    }
  }
  if (moved) fnack_armed_ = true;
  una_ = una;  // adopted even when "behind": the first PSN of a QP is arbitrary
  sacked_.move_to(una);
  if (recovering_ && wire::psn_before(sack_high_, una)) {
    recovering_ = false;
    lost_cnt_ = 0;
    overflow_ = false;
  }
}

void FasrRequester::on_nak(uint32_t psn, uint32_t snd_max) {
  queue_.clear();
  sacked_.move_to(psn);
  if (sacked_.in_window(psn)) sacked_.clear(psn);
  resend(psn, snd_max);
}

void FasrRequester::on_sack_state(uint8_t lost_cnt, bool overflow) {
  sack_lost_cnt_ = lost_cnt;
  sack_overflow_ = overflow;
}

void FasrRequester::on_sack(uint32_t una, uint32_t sacked, uint32_t /*snd_max*/) {
  on_ack(una);
  if (wire::psn_before(sacked, una)) return;
  if (sacked_.in_window(sacked)) sacked_.set(sacked);
  if (!recovering_) {
    recovering_ = true;
    sack_high_ = sacked;
    resend(una, sacked);
  } else if (wire::psn_before(sack_high_, sacked)) {
    const uint32_t gap_from = wire::psn_add(sack_high_, 1);
    if (gap_from != sacked) {
      const bool grew = sack_overflow_ || sack_lost_cnt_ > lost_cnt_;
      if (grew) {
        resend(gap_from, sacked);
      } else {
        for (uint32_t p = gap_from; p != sacked; p = wire::psn_add(p, 1)) {
          if (sacked_.in_window(p)) sacked_.set(p);
        }
      }
    }
    sack_high_ = sacked;
  }
  lost_cnt_ = sack_lost_cnt_;
  overflow_ = sack_overflow_;
}

void FasrRequester::on_fnack(uint32_t una, uint32_t snd_max) {
  on_ack(una);
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
  sacked_.move_to(una);
  // UNACK goes again even if SACKed: when the ACK that would have covered it was lost, its
  // duplicate makes the receiver acknowledge again.
  if (sacked_.in_window(una)) sacked_.clear(una);
  if (!recovering_) {
    resend(una, snd_max);  // lost-cnt 0: go back to UNACK
  } else if (lost_cnt_ == 1 && !overflow_) {
    resend(una, wire::psn_add(una, 1));
  } else {
    resend(una, wire::psn_add(sack_high_, 1));  // UNACK and the holes up to sack-high
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
    if (sacked_.in_window(psn) && sacked_.test(psn)) continue;
    return psn;
  }
  return std::nullopt;
}

bool FasrRequester::may_send_new(uint32_t in_flight) const {
  return in_flight < config_.bdp_packets;
}

Time FasrRequester::timeout(uint32_t in_flight, Time /*qp_timeout*/) const {
  return in_flight <= config_.rto_low_threshold ? config_.rto_low : config_.rto_high;
}

}  // namespace bifrost::rnic::recovery
