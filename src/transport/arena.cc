#include "arena.h"

#include "bifrost/core/error.h"

namespace bifrost::transport {

Arena::Arena(uint64_t base, uint64_t size, uint64_t alignment)
    : alignment_(alignment), free_bytes_(size / alignment * alignment) {
  if (alignment == 0) throw Error("arena alignment must be positive");
  if (free_bytes_ > 0) free_.emplace(base, free_bytes_);
}

std::optional<uint64_t> Arena::allocate(uint64_t size) {
  const uint64_t need = round(size == 0 ? 1 : size);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < need) continue;
    const uint64_t addr = it->first;
    const uint64_t rest = it->second - need;
    free_.erase(it);
    if (rest > 0) free_.emplace(addr + need, rest);
    free_bytes_ -= need;
    return addr;
  }
  return std::nullopt;
}

void Arena::free(uint64_t addr, uint64_t size) {
  const uint64_t length = round(size == 0 ? 1 : size);
  free_bytes_ += length;
  auto [it, inserted] = free_.emplace(addr, length);
  if (!inserted) throw Error("arena: range at {:#x} freed twice", addr);
  const auto next = std::next(it);
  if (next != free_.end() && it->first + it->second == next->first) {
    it->second += next->second;
    free_.erase(next);
  }
  if (it != free_.begin()) {
    const auto prev = std::prev(it);
    if (prev->first + prev->second == it->first) {
      prev->second += it->second;
      free_.erase(it);
    }
  }
}

}  // namespace bifrost::transport
