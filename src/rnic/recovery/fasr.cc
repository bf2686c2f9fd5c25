#include "bifrost/rnic/recovery/fasr.h"

#include "bifrost/core/error.h"
#include "bifrost/rnic/recovery/fasr_requester.h"
#include "bifrost/rnic/recovery/fasr_responder.h"

namespace bifrost::rnic::recovery {

FasrEngine::FasrEngine(const RecoveryConfig& config)
    : config_(config), pool_(std::make_shared<FasrPool>(config.fasr_pool)) {
  if (config.bdp_packets == 0 || config.bdp_packets > (1u << 22)) {
    throw Error("recovery: bdp_packets {} is invalid: use 1..{}", config.bdp_packets, 1u << 22);
  }
  if (config.rto_low <= Time::zero() || config.rto_high < config.rto_low) {
    throw Error("recovery: need 0 < rto_low <= rto_high (got {} us and {} us)",
                config.rto_low.microseconds(), config.rto_high.microseconds());
  }
}

MemoryFootprint FasrEngine::footprint() const {
  return {kPaperPointerBytes, kPaperPoolBytes};
}

MemoryFootprint FasrEngine::implemented_footprint() const {
  // Each half holds a unit pointer and a few flags in the QP context (their nic_state_bits);
  // the pool is held once.
  const FasrRequester sender(config_, pool_);
  const FasrResponder receiver(pool_);
  return {bytes_of_bits(sender.nic_state_bits() + receiver.nic_state_bits()),
          fasr_pool_bytes(config_.fasr_pool)};
}

std::unique_ptr<RequesterState> FasrEngine::make_requester() {
  return std::make_unique<FasrRequester>(config_, pool_);
}

std::unique_ptr<ResponderState> FasrEngine::make_responder() {
  return std::make_unique<FasrResponder>(pool_);
}

}  // namespace bifrost::rnic::recovery
