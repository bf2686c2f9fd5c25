#pragma once
// Protection domains and memory regions: what a remote peer may touch. The receive path
// calls check_remote before placing a single byte and maps a failure to a remote-access NAK.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "bifrost/core/rng.h"
#include "bifrost/rnic/access.h"

namespace bifrost::rnic {

// A handle: MRs and QPs belong to one PD, and a remote access through a QP of another PD fails.
class HostMemory;

struct ProtectionDomain {
  uint32_t handle = 0;
  constexpr bool operator==(const ProtectionDomain&) const = default;
};

struct MemoryRegion {
  ProtectionDomain pd;
  uint64_t base = 0;    // first virtual address
  uint64_t length = 0;  // bytes
  Access access = Access::none;
  uint32_t lkey = 0;
  uint32_t rkey = 0;
  // Where the bytes live. Null: a region without content (simulated bulk data nobody checks);
  // reads give zero-pattern payloads and writes are discarded.
  HostMemory* memory = nullptr;
};

enum class AccessResult : uint8_t { ok, bad_rkey, out_of_bounds, access_denied, wrong_pd };
std::string_view to_string(AccessResult result);

class MemoryRegistry {
 public:
  // Keys are drawn from `keys`, so a peer cannot guess the next rkey from the last one.
  explicit MemoryRegistry(RandomStream keys) : keys_(keys) {}

  // Throws Error if base + length wraps past 2^64, if a remote write/atomic right comes
  // without local_write (ibverbs refuses that combination too) or if `memory` is given and
  // does not hold the whole region.
  const MemoryRegion& register_region(ProtectionDomain pd, uint64_t base, uint64_t length,
                                      Access access, HostMemory* memory = nullptr);
  // Throws Error if no live region has this lkey.
  void deregister(uint32_t lkey);

  // Whether a peer, arriving through a QP of `pd`, may access [va, va + length) with `wanted`.
  AccessResult check_remote(ProtectionDomain pd, uint32_t rkey, uint64_t va, uint64_t length,
                            Access wanted) const;
  // The same for the local side of a work request; `wanted` is none to read, local_write to
  // write. A bad lkey reports bad_rkey (the key kind is implied by the caller).
  AccessResult check_local(ProtectionDomain pd, uint32_t lkey, uint64_t va, uint64_t length,
                           Access wanted) const;

  const MemoryRegion* find_by_lkey(uint32_t lkey) const;
  const MemoryRegion* find_by_rkey(uint32_t rkey) const;
  size_t size() const { return by_lkey_.size(); }

 private:
  uint32_t fresh_key();

  RandomStream keys_;
  std::unordered_map<uint32_t, MemoryRegion> by_lkey_;
  std::unordered_map<uint32_t, uint32_t> lkey_of_rkey_;
  // Every key ever issued: a stale rkey in a late packet must never reach a newer region.
  std::unordered_set<uint32_t> issued_;
  // The regions found last (cleared when they are deregistered).
  mutable const MemoryRegion* last_rkey_ = nullptr;
  mutable const MemoryRegion* last_lkey_ = nullptr;
};

}  // namespace bifrost::rnic
