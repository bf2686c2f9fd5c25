#pragma once
// FaSR's receiver (the paper, section III). RCV-NXT is the responder's expected PSN; the rest
// lives in a state unit of the shared pool, taken at the first out-of-order packet and returned
// when recovery completes:
// - lost-cnt (3 bits) counts the PSNs missing in [RCV-NXT, sack-high]. It grows by the gap an
//   out-of-order packet opens (to RCV-NXT when there was no loss, to sack-high during
//   recovery) and shrinks as retransmissions arrive. Past 7 it saturates and the overflow flag
//   is set; counting resumes only in the next recovery (our reading of the paper: the flag
//   tells the sender "more than 7", and the receiver then relies on its bitmap alone).
// - Fast path (lost-cnt == 1, no overflow): no bitmap; an out-of-order packet at sack-high + 1
//   only moves sack-high; the retransmission of RCV-NXT sets RCV-NXT = sack-high + 1.
// - Slow path (lost-cnt > 1): the run of packets that had arrived after RCV-NXT is kept as
//   compression-cnt (10 bits) and the bitmap starts after it; later out-of-order packets set
//   bits in blocks added at the tail; RCV-NXT advances by querying the run and the bitmap, and
//   blocks are released from the head. Back to the fast path when lost-cnt returns to 1.
// - A packet in (RCV-NXT, sack-high] that is not there yet is a retransmission that overtook
//   the one of RCV-NXT: the sender resends holes in PSN order, so RCV-NXT's retransmission was
//   lost. It is dropped and answered with an FNACK (one per RCV-NXT).
// - No free unit, or no free block for the slow path: the QP falls back to go-back-N (drops,
//   one NAK per episode) until its recovery completes, keeping what it had recorded.
#include <memory>

#include "bifrost/rnic/recovery/engine.h"
#include "bifrost/rnic/recovery/fasr_pool.h"

namespace bifrost::rnic::recovery {

class FasrResponder final : public ResponderState {
 public:
  enum class Path : uint8_t { normal, fast, slow };

  explicit FasrResponder(std::shared_ptr<FasrPool> pool);
  ~FasrResponder() override;
  FasrResponder(const FasrResponder&) = delete;
  FasrResponder& operator=(const FasrResponder&) = delete;

  Arrival classify(uint32_t psn, uint32_t expected, uint32_t span) override;
  void record(uint32_t psn, uint32_t span) override;
  uint32_t advance(uint32_t expected, uint32_t span) override;
  Feedback feedback(Arrival arrival) override;
  uint32_t sack_info() const override;
  // While a unit is held: the lost-cnt every ACK carries (the AACK), so that the sender sees
  // it fall as retransmissions arrive.
  std::optional<uint32_t> ack_info() const override;
  // The unit pointer and four flags: go-back-N fallback, NAK sent, FNACK sent, went slow.
  uint64_t nic_state_bits() const override;

  // For tests and statistics.
  Path path() const;
  bool go_back_n() const { return gbn_; }
  uint8_t lost_cnt() const;
  bool overflow() const;
  uint32_t sack_high() const;
  uint16_t compression() const;
  uint32_t blocks() const;
  uint64_t fast_recoveries() const { return fast_recoveries_; }
  uint64_t slow_recoveries() const { return slow_recoveries_; }

 private:
  // no_unit, no_block: the pool is exhausted (of units, of bitmap blocks).
  enum class DropReason : uint8_t { fnack, go_back, no_unit, no_block };
  // True if `psn` in (RCV-NXT, sack-high] has arrived.
  bool received(uint32_t psn) const;
  // Whether the pool can take the out-of-order `psn` now.
  bool can_record(uint32_t psn) const;
  void add_lost(uint32_t gap);
  void record_one(uint32_t psn);
  void finish();

  std::shared_ptr<FasrPool> pool_;
  int32_t unit_ = FasrPool::kNull;  // the per-QP pointer
  uint32_t rcv_nxt_ = 0;            // as of the last classify
  bool gbn_ = false;
  bool nak_sent_ = false;
  bool fnack_sent_ = false;  // for this RCV-NXT
  bool went_slow_ = false;   // this recovery used the slow path
  DropReason drop_reason_ = DropReason::go_back;
  uint64_t fast_recoveries_ = 0;
  uint64_t slow_recoveries_ = 0;
};

}  // namespace bifrost::rnic::recovery
