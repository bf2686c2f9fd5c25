#pragma once
// FaSR's sender (the paper, section III-B). Its SR state lives in the NIC-wide pool
// (fasr_pool.h), like the receiver's: a QP holds a null pointer until its first SACK, then one
// state unit (sack-high and the lost-cnt last carried by the receiver) until UNACK passes
// sack-high. Bitmap blocks are taken only on the slow path (a carried lost-cnt above 1), to
// remember which PSNs between UNACK and sack-high arrived.
// - The first SACK starts loss recovery: [UNACK, SACK) is resent at once, whatever lost-cnt.
// - Later, a SACK beyond sack-high that leaves a gap means new losses only if the lost-cnt it
//   carries is above the one last carried (or lost-cnt overflowed): then the gap is resent;
//   otherwise its packets arrived and only their SACKs were lost. The sender never counts
//   lost-cnt itself: it only compares what the receiver sends.
// - lost-cnt also falls when retransmissions arrive, which the receiver answers with ACKs. An
//   ACK that says nothing of lost-cnt leaves the sender comparing against a stale, higher
//   count, so a later loss looks like a lost SACK. bifrost resolves this on the wire: the
//   receiver's ACKs carry lost-cnt while it is in recovery (the paper's AACK), and the sender
//   adopts it when it fell; a rise is left for the next SACK to show with its gap (docs/rnic.md,
//   "FaSR's AACK").
// - A retransmission timeout, or an FNACK (once per new ACK), by the last carried lost-cnt:
//   > 1 (or overflow) resend UNACK and every PSN between UNACK and sack-high the bitmap does
//   not hold; 1 resend UNACK only, no bitmap; 0 (no unit) go back to UNACK.
// - No unit, or too few blocks, for the first SACK: go back to UNACK (the pool's go-back-N
//   fallback), once per new ACK. A NAK (the receiver fell back) goes back to the NAK'd PSN.
// At most bdp_packets in flight, and IRN's two timeouts.
#include <cstdint>
#include <deque>
#include <memory>

#include "bifrost/rnic/recovery/engine.h"
#include "bifrost/rnic/recovery/fasr_pool.h"

namespace bifrost::rnic::recovery {

class FasrRequester final : public RequesterState {
 public:
  FasrRequester(const RecoveryConfig& config, std::shared_ptr<FasrPool> pool);
  ~FasrRequester() override;
  FasrRequester(const FasrRequester&) = delete;
  FasrRequester& operator=(const FasrRequester&) = delete;

  void on_ack(uint32_t una) override;
  void on_nak(uint32_t psn, uint32_t snd_max) override;
  void on_sack_state(uint8_t lost_cnt, bool overflow) override;
  void on_aack(uint8_t lost_cnt, bool overflow) override;
  void on_sack(uint32_t una, uint32_t sacked, uint32_t snd_max) override;
  void on_fnack(uint32_t una, uint32_t snd_max) override;
  void on_timeout(uint32_t una, uint32_t snd_max) override;
  std::optional<uint32_t> next_retransmission(uint32_t una, uint32_t snd_max) override;
  bool may_send_new(uint32_t in_flight) const override;
  Time timeout(uint32_t in_flight, Time qp_timeout) const override;
  // The unit pointer and the two once-per-new-ACK flags; UNACK is the base context's, the
  // rest is in the unit.
  uint64_t nic_state_bits() const override;

  // For tests.
  bool recovering() const { return unit_ != FasrPool::kNull; }
  bool slow() const;
  uint8_t lost_cnt() const;
  bool overflow() const;
  uint32_t sack_high() const;
  uint32_t blocks() const;
  uint64_t early_timeouts() const { return early_timeouts_; }
  uint64_t bitmap_queries() const { return bitmap_queries_; }

 private:
  struct Range {
    uint32_t from;
    uint32_t to;  // exclusive
  };
  struct Carried {  // the lost-cnt of the SACK being handled
    bool valid = false;
    uint8_t lost_cnt = 0;
    bool overflow = false;
  };
  void resend(uint32_t from, uint32_t to) { queue_.push_back(Range{from, to}); }
  // Moves UNACK; ends recovery once it passes sack-high.
  void advance(uint32_t una);
  // The first SACK: takes a unit, or goes back to UNACK without one.
  void start_recovery(uint32_t una, uint32_t sacked, uint32_t snd_max);
  // A SACK during recovery.
  void continue_recovery(uint32_t sacked, uint32_t snd_max);
  // Records `psn` as arrived in the slow path's bitmap; false if the pool has too few blocks.
  bool mark(uint32_t psn);
  // Adopts the carried lost-cnt; takes or returns the bitmap as the path changes.
  void adopt(const Carried& carried);
  // Moves the unit to the slow path: everything in (UNACK, sack-high] arrived so far; false if
  // the pool has too few blocks.
  bool go_slow();
  // The pool's go-back-N fallback: returns the unit and resends from UNACK.
  void fall_back(uint32_t snd_max);
  void release();
  // The timeout rules by lost-cnt.
  void time_out(uint32_t una, uint32_t snd_max);
  FasrUnit& unit() { return pool_->unit(unit_); }
  const FasrUnit& unit() const { return pool_->unit(unit_); }

  RecoveryConfig config_;
  std::shared_ptr<FasrPool> pool_;
  // The QP context's share: the 1-byte unit pointer and two flags; the rest is in the unit.
  int32_t unit_ = FasrPool::kNull;
  bool fnack_armed_ = true;    // an FNACK acts once per new ACK
  bool go_back_armed_ = true;  // without a unit, a SACK goes back to UNACK once per new ACK
  uint32_t una_ = 0;           // the base context's UNACK
  Carried carried_;
  std::deque<Range> queue_;  // the retransmission queue: PSNs to resend, in order
  uint64_t early_timeouts_ = 0;
  uint64_t bitmap_queries_ = 0;
};

}  // namespace bifrost::rnic::recovery
