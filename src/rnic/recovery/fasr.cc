#include "bifrost/rnic/recovery/fasr.h"

#include <algorithm>
#include <bit>

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
  // Each half holds a unit pointer (null, or one of `units`) in the QP context, and flags:
  // the sender whether an FNACK and a go-back may act (once per new ACK), the receiver its
  // go-back-N fallback, NAK sent, FNACK sent, and whether this recovery went slow.
  const auto pointer = std::max<uint64_t>(8, std::bit_width(config_.fasr_pool.units));
  const uint64_t sender = pointer + 2;
  const uint64_t receiver = pointer + 4;
  return {bytes_of_bits(sender + receiver), fasr_pool_bytes(config_.fasr_pool)};
}

std::unique_ptr<RequesterState> FasrEngine::make_requester() {
  return std::make_unique<FasrRequester>(config_, pool_);
}

std::unique_ptr<ResponderState> FasrEngine::make_responder() {
  return std::make_unique<FasrResponder>(pool_);
}

}  // namespace bifrost::rnic::recovery
