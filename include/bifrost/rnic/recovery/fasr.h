#pragma once
// FaSR: fast and scalable selective retransmission (the soft RNIC's fourth recovery engine).
// Selective repeat whose receive-side state lives in one small pool shared by every QP of the
// NIC (fasr_pool.h): a QP without loss holds a null pointer, a QP that lost one PSN (the common
// case) holds one state unit and no bitmap (the fast path), and only a QP with several holes
// chains bitmap blocks (the slow path). The sender's state lives in the same pool, from its
// first SACK on. Receiver: fasr_responder.h; sender: fasr_requester.h.
#include <memory>

#include "bifrost/rnic/recovery/engine.h"
#include "bifrost/rnic/recovery/fasr_pool.h"

namespace bifrost::rnic::recovery {

class FasrEngine final : public Engine {
 public:
  // Throws Error for a zero BDP cap, zero timeouts or an invalid pool.
  explicit FasrEngine(const RecoveryConfig& config);
  std::string_view name() const override { return "fasr"; }
  bool selective() const override { return true; }
  bool lean_sr_header() const override { return config_.lean_sr_header; }
  // The paper's accounting (section V-A): "FaSR adds 1B of SR state pointer per QP and 1600B
  // of SR state share overhead", whatever the pool is configured to.
  static constexpr uint64_t kPaperPointerBytes = 1;
  static constexpr uint64_t kPaperPoolBytes = 1600;
  MemoryFootprint footprint() const override;
  // Both halves' pointers and flags per QP, and the configured pool as laid out
  // (fasr_pool_bytes).
  MemoryFootprint implemented_footprint() const override;
  std::unique_ptr<RequesterState> make_requester() override;
  std::unique_ptr<ResponderState> make_responder() override;
  // Starts the pool's time-weighted occupancy (FasrPool::occupancy).
  void set_clock(const world::Scheduler& clock) override { pool_->set_clock(clock); }

  // The pool, for its usage counters.
  const FasrPool& pool() const { return *pool_; }

 private:
  RecoveryConfig config_;
  // Shared with the responder states: a device destroys its engine before its QPs.
  std::shared_ptr<FasrPool> pool_;
};

}  // namespace bifrost::rnic::recovery
