#pragma once
// First-fit allocation of unit-aligned ranges in the receive arena, where large messages land.
// Freed neighbours merge, so the arena does not fragment under a steady mix of sizes.
#include <cstdint>
#include <map>
#include <optional>

namespace bifrost::transport {

class Arena {
 public:
  Arena(uint64_t base, uint64_t size, uint64_t alignment);
  // The address of `size` free bytes (rounded up to the alignment), or nothing if no free
  // range is large enough.
  std::optional<uint64_t> allocate(uint64_t size);
  void free(uint64_t addr, uint64_t size);
  uint64_t free_bytes() const { return free_bytes_; }

 private:
  uint64_t round(uint64_t size) const { return (size + alignment_ - 1) / alignment_ * alignment_; }

  uint64_t alignment_;
  std::map<uint64_t, uint64_t> free_;  // address -> length
  uint64_t free_bytes_;
};

}  // namespace bifrost::transport
