#pragma once
// Context fetches in flight at once. A NIC that misses its QP-context cache fetches the context
// over PCIe; a DMA engine keeps several reads outstanding, so misses of different packets
// overlap instead of each blocking the receive pipeline in turn. Each fetch takes one of
// `slots`; a fetch that finds every slot busy starts when the earliest frees.
#include <cstdint>
#include <vector>

#include "bifrost/core/time.h"

namespace bifrost::rnic {

class ContextFetches {
 public:
  // Throws Error for zero slots.
  explicit ContextFetches(uint32_t slots);

  // A fetch of `duration` asked for at `now` (times must not decrease): when it completes.
  Time start(Time now, Time duration);

  uint32_t slots() const { return static_cast<uint32_t>(free_at_.size()); }
  // Fetches that had to wait for a slot.
  uint64_t queued() const { return queued_; }

 private:
  std::vector<Time> free_at_;  // per slot, when its current fetch completes
  uint64_t queued_ = 0;
};

}  // namespace bifrost::rnic
