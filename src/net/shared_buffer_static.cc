// The static partition of SharedBuffer (shared_buffer.h): every byte belongs to one queue's or
// one ingress port's own share, and there is no shared pool to borrow from.
#include <algorithm>

#include "bifrost/core/error.h"
#include "bifrost/net/shared_buffer.h"

namespace bifrost::net {

// The buffer is the sum of the shares: each egress queue's reservation (for lossy frames) and
// each lossless ingress's xoff plus headroom. A dynamic xoff is alpha x the free shared bytes,
// which a buffer without a shared pool cannot give.
void SharedBuffer::size_static_partition() {
  uint64_t total = config_.reserved_per_queue.count() * queues_.size();
  for (std::size_t i = 0; i < ingress_.size(); ++i) {
    const IngressLimits& limits = ingress_[i].limits;
    if (!limits.lossless) continue;
    if (limits.xoff.is_dynamic()) {
      throw Error(
          "port {} priority {}: a static buffer partition has no shared pool, so a dynamic PFC "
          "threshold (alpha x the free shared bytes) is always 0; give this port a static xoff",
          i / kPriorities, i % kPriorities);
    }
    total += limits.xoff.resolve(Bytes(0)).count() + limits.headroom.count();
  }
  shared_size_ = 0;
  total_ = total;
}

// A lossless frame: the ingress's own share up to xoff, then its headroom; never the egress
// queue's reservation, which is for lossy frames (admit() handles those).
Admission SharedBuffer::admit_static(QueueState& /*queue: not used by lossless frames*/,
                                     IngressState& in, uint64_t bytes) {
  Admission result;
  if (in.buffered + bytes <= effective_xoff(in, 0)) {
    in.buffered += bytes;
    port_used_ += bytes;
    result.pool = BufferPool::kPort;
  } else if (in.headroom + bytes <= in.limits.headroom.count()) {
    in.headroom += bytes;
    headroom_used_ += bytes;
    in.peak_headroom = std::max(in.peak_headroom, in.headroom);
    result.pool = BufferPool::kHeadroom;
  } else {
    result.reason = DropReason::kHeadroomExceeded;
    return result;
  }
  result.admitted = true;
  return result;
}

}  // namespace bifrost::net
