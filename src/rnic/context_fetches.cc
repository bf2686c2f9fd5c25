#include "bifrost/rnic/context_fetches.h"

#include <algorithm>

#include "bifrost/core/error.h"

namespace bifrost::rnic {

ContextFetches::ContextFetches(uint32_t slots) : free_at_(slots, Time::zero()) {
  if (slots == 0) throw Error("context fetches: need at least one slot (0 is the serial stall)");
}

Time ContextFetches::start(Time now, Time duration) {
  // Slots are few (a DMA engine's outstanding reads), so a linear scan beats a heap.
  const auto slot = std::min_element(free_at_.begin(), free_at_.end());
  if (*slot > now) ++queued_;
  *slot = std::max(*slot, now) + duration;
  return *slot;
}

}  // namespace bifrost::rnic
