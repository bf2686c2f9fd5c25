#pragma once
// FaSR's sender (the paper, section III-B). It follows the receiver's lost-cnt, which every
// SACK carries, so both ends take the same path:
// - the first SACK starts loss recovery: every PSN from UNACK up to the SACKed one that was not
//   SACKed is resent at once;
// - during recovery a SACK beyond sack-high that leaves a gap means new losses only if the
//   returned lost-cnt grew: then the gap is resent; otherwise its packets arrived and only
//   their SACKs were lost, so they count as SACKed;
// - UNACK moves with cumulative ACKs; recovery ends when it passes sack-high;
// - on a timeout, or early on an FNACK (once per new ACK), by lost-cnt: > 1 resend UNACK and
//   every hole up to sack-high; == 1 only UNACK; 0 (no recovery) go back to UNACK;
// - a NAK (the receiver fell back to go-back-N) goes back to the NAK'd PSN.
// At most bdp_packets in flight, and IRN's two timeouts.
#include <cstdint>
#include <deque>

#include "bifrost/rnic/recovery/engine.h"
#include "bifrost/rnic/recovery/psn_bitmap.h"

namespace bifrost::rnic::recovery {

class FasrRequester final : public RequesterState {
 public:
  explicit FasrRequester(const RecoveryConfig& config);

  void on_ack(uint32_t una) override;
  void on_nak(uint32_t psn, uint32_t snd_max) override;
  void on_sack_state(uint8_t lost_cnt, bool overflow) override;
  void on_sack(uint32_t una, uint32_t sacked, uint32_t snd_max) override;
  void on_fnack(uint32_t una, uint32_t snd_max) override;
  void on_timeout(uint32_t una, uint32_t snd_max) override;
  std::optional<uint32_t> next_retransmission(uint32_t una, uint32_t snd_max) override;
  bool may_send_new(uint32_t in_flight) const override;
  Time timeout(uint32_t in_flight, Time qp_timeout) const override;

  // For tests.
  bool recovering() const { return recovering_; }
  uint8_t lost_cnt() const { return lost_cnt_; }
  uint32_t sack_high() const { return sack_high_; }
  uint64_t early_timeouts() const { return early_timeouts_; }

 private:
  struct Range {
    uint32_t from;
    uint32_t to;  // exclusive
  };
  void resend(uint32_t from, uint32_t to) { queue_.push_back(Range{from, to}); }
  // The timeout rules by lost-cnt.
  void time_out(uint32_t una, uint32_t snd_max);

  RecoveryConfig config_;
  PsnBitmap sacked_;
  std::deque<Range> queue_;  // PSNs to resend, in order; SACKed ones are skipped
  uint32_t una_ = 0;
  bool recovering_ = false;
  uint32_t sack_high_ = 0;
  uint8_t lost_cnt_ = 0;
  bool overflow_ = false;
  uint8_t sack_lost_cnt_ = 0;  // carried by the SACK being handled
  bool sack_overflow_ = false;
  bool fnack_armed_ = true;  // an FNACK acts once per new ACK
  uint64_t early_timeouts_ = 0;
};

}  // namespace bifrost::rnic::recovery
