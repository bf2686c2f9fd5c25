#include "bifrost/transport/chunking/chunk_policy.h"

#include <algorithm>

#include "bifrost/core/error.h"
#include "bifrost/transport/chunking/loss_estimate.h"

namespace bifrost::transport {

LoadAwareChunking::LoadAwareChunking(uint32_t unit_size, uint32_t max_chunk, uint32_t mtu,
                                     double loss_budget)
    : unit_(unit_size), max_chunk_(max_chunk), mtu_(mtu), loss_budget_(loss_budget) {
  if (unit_size == 0 || max_chunk < unit_size || max_chunk % unit_size != 0) {
    throw Error("chunking: the maximum chunk ({} B) must be a non-zero multiple of the unit ({} B)",
                max_chunk, unit_size);
  }
  if (mtu == 0 || !(loss_budget >= 0 && loss_budget <= 1)) {
    throw Error("chunking: the MTU ({} B) must be positive and the loss budget ({}) in [0, 1]", mtu,
                loss_budget);
  }
}

uint64_t LoadAwareChunking::next_chunk(const ChunkContext& c) const {
  // The hard cap: the window, the BDP, the largest chunk and, while losses are seen, the loss
  // budget. Queuing delay then shrinks the chunk below it.
  uint64_t hard = std::min<uint64_t>({max_chunk_, c.bdp, c.window_available});
  uint64_t cap = hard;
  if (c.rtt > c.base_rtt && c.base_rtt > Time::zero()) {
    cap = static_cast<uint64_t>(static_cast<double>(cap) * c.base_rtt.seconds() / c.rtt.seconds());
  }
  const uint64_t loss_cap = loss_budget_bytes(loss_budget_, c.loss_rate, mtu_, max_chunk_);
  cap = std::min(cap, loss_cap);
  hard = std::min(hard, loss_cap);
  const uint64_t size = std::max<uint64_t>(unit_, cap / unit_ * unit_);
  // A tail under a quarter of this chunk is not worth a WQE of its own: it joins the chunk
  // when the hard cap allows. (Rounding the delay-shrunk size down split a 64 KiB message
  // into 60 + 4 KiB whenever srtt sat just above the base RTT.)
  if (c.remaining > size && c.remaining <= hard && c.remaining - size < size / 4) {
    return c.remaining;
  }
  return std::min(size, c.remaining);
}

std::unique_ptr<ChunkPolicy> make_chunk_policy(const TransportConfig& config) {
  if (!config.chunking) return std::make_unique<WholeMessage>();
  return std::make_unique<LoadAwareChunking>(config.unit_size, config.max_chunk, config.mtu,
                                             config.chunk_loss_budget);
}

}  // namespace bifrost::transport
