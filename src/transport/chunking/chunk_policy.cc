#include "bifrost/transport/chunking/chunk_policy.h"

#include <algorithm>

#include "bifrost/core/error.h"

namespace bifrost::transport {

LoadAwareChunking::LoadAwareChunking(uint32_t unit_size, uint32_t max_chunk)
    : unit_(unit_size), max_chunk_(max_chunk) {
  if (unit_size == 0 || max_chunk < unit_size || max_chunk % unit_size != 0) {
    throw Error("chunking: the maximum chunk ({} B) must be a non-zero multiple of the unit ({} B)",
                max_chunk, unit_size);
  }
}

uint64_t LoadAwareChunking::next_chunk(const ChunkContext& c) const {
  uint64_t cap = std::min<uint64_t>({max_chunk_, c.bdp, c.window_available});
  if (c.rtt > c.base_rtt && c.base_rtt > Time::zero()) {
    cap = static_cast<uint64_t>(static_cast<double>(cap) * c.base_rtt.seconds() / c.rtt.seconds());
  }
  const uint64_t size = std::max<uint64_t>(unit_, cap / unit_ * unit_);
  return std::min(size, c.remaining);
}

std::unique_ptr<ChunkPolicy> make_chunk_policy(const TransportConfig& config) {
  if (!config.chunking) return std::make_unique<WholeMessage>();
  return std::make_unique<LoadAwareChunking>(config.unit_size, config.max_chunk);
}

}  // namespace bifrost::transport
