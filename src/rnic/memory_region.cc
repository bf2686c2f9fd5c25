#include "bifrost/rnic/memory_region.h"

#include "bifrost/rnic/host_memory.h"

#include "bifrost/core/error.h"

namespace bifrost::rnic {
namespace {

// Bounds without computing va + length, which may wrap: the access must start inside the
// region (or at its end, for zero bytes) and fit in what remains after its start.
bool in_bounds(const MemoryRegion& mr, uint64_t va, uint64_t length) {
  if (va < mr.base) return false;
  const uint64_t offset = va - mr.base;
  if (offset > mr.length) return false;
  return length <= mr.length - offset;
}

AccessResult check(const MemoryRegion& mr, ProtectionDomain pd, uint64_t va, uint64_t length,
                   Access wanted) {
  if (mr.pd != pd) return AccessResult::wrong_pd;
  if (!allows(mr.access, wanted)) return AccessResult::access_denied;
  if (!in_bounds(mr, va, length)) return AccessResult::out_of_bounds;
  return AccessResult::ok;
}

}  // namespace

std::string_view to_string(AccessResult result) {
  switch (result) {
    case AccessResult::ok:
      return "ok";
    case AccessResult::bad_rkey:
      return "bad_rkey";
    case AccessResult::out_of_bounds:
      return "out_of_bounds";
    case AccessResult::access_denied:
      return "access_denied";
    case AccessResult::wrong_pd:
      return "wrong_pd";
  }
  return "unknown";
}

uint32_t MemoryRegistry::fresh_key() {
  // Key 0 is left unused so a zeroed header never matches a region.
  for (;;) {
    const auto key = static_cast<uint32_t>(keys_.next_u64() >> 32);
    if (key != 0 && issued_.insert(key).second) return key;
  }
}

const MemoryRegion& MemoryRegistry::register_region(ProtectionDomain pd, uint64_t base,
                                                    uint64_t length, Access access,
                                                    HostMemory* memory) {
  if (length > UINT64_MAX - base) {
    throw Error(
        "cannot register memory region at {:#x} of {} bytes: it wraps past the end of "
        "the 64-bit address space",
        base, length);
  }
  if ((allows(access, Access::remote_write) || allows(access, Access::remote_atomic)) &&
      !allows(access, Access::local_write)) {
    throw Error(
        "cannot register memory region with access {}: remote_write and remote_atomic "
        "need local_write as well",
        to_string(access));
  }
  if (memory != nullptr && (base < memory->base() || length > memory->size() ||
                            base - memory->base() > memory->size() - length)) {
    throw Error(
        "cannot register memory region [{:#x}, +{}): it is not inside its host memory [{:#x}, "
        "+{})",
        base, length, memory->base(), memory->size());
  }
  MemoryRegion mr{pd, base, length, access, fresh_key(), fresh_key(), memory};
  lkey_of_rkey_.emplace(mr.rkey, mr.lkey);
  return by_lkey_.emplace(mr.lkey, mr).first->second;
}

void MemoryRegistry::deregister(uint32_t lkey) {
  const auto it = by_lkey_.find(lkey);
  if (it == by_lkey_.end()) {
    throw Error("cannot deregister memory region with lkey {:#010x}: no such region", lkey);
  }
  lkey_of_rkey_.erase(it->second.rkey);
  if (last_rkey_ == &it->second) last_rkey_ = nullptr;
  if (last_lkey_ == &it->second) last_lkey_ = nullptr;
  by_lkey_.erase(it);
}

const MemoryRegion* MemoryRegistry::find_by_lkey(uint32_t lkey) const {
  if (last_lkey_ != nullptr && last_lkey_->lkey == lkey) return last_lkey_;
  const auto it = by_lkey_.find(lkey);
  if (it == by_lkey_.end()) return nullptr;
  last_lkey_ = &it->second;
  return last_lkey_;
}

const MemoryRegion* MemoryRegistry::find_by_rkey(uint32_t rkey) const {
  // Every packet of a transfer names the same region: remember the last one found.
  if (last_rkey_ != nullptr && last_rkey_->rkey == rkey) return last_rkey_;
  const auto it = lkey_of_rkey_.find(rkey);
  if (it == lkey_of_rkey_.end()) return nullptr;
  last_rkey_ = find_by_lkey(it->second);
  return last_rkey_;
}

AccessResult MemoryRegistry::check_remote(ProtectionDomain pd, uint32_t rkey, uint64_t va,
                                          uint64_t length, Access wanted) const {
  const MemoryRegion* mr = find_by_rkey(rkey);
  if (mr == nullptr) return AccessResult::bad_rkey;
  return check(*mr, pd, va, length, wanted);
}

AccessResult MemoryRegistry::check_local(ProtectionDomain pd, uint32_t lkey, uint64_t va,
                                         uint64_t length, Access wanted) const {
  const MemoryRegion* mr = find_by_lkey(lkey);
  if (mr == nullptr) return AccessResult::bad_rkey;
  return check(*mr, pd, va, length, wanted);
}

}  // namespace bifrost::rnic
