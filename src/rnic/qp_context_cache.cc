#include "bifrost/rnic/qp_context_cache.h"

#include "bifrost/core/error.h"

namespace bifrost::rnic {

namespace qp_cache_profile {

QpContextCacheConfig cx6_like(Bytes recovery_state_bytes) {
  QpContextCacheConfig c;
  c.capacity = (kBaseQpContextBytes + recovery_state_bytes) * 256;
  c.miss_penalty = Time::us(1);
  return c;
}

QpContextCacheConfig fasr_like() {
  QpContextCacheConfig c;
  c.capacity = Bytes(1'400'000);
  c.miss_penalty = Time::us(1);
  return c;
}

}  // namespace qp_cache_profile

QpContextCache::QpContextCache(QpContextCacheConfig config, Bytes recovery_state_bytes)
    : config_(config), context_bytes_(kBaseQpContextBytes + recovery_state_bytes) {
  if (config.capacity == Bytes(0)) return;
  const uint64_t entries = config.capacity.count() / context_bytes_.count();
  if (entries == 0) {
    throw Error(
        "QP-context cache of {} bytes cannot hold one {}-byte context: use 0 for no cache or at "
        "least {} bytes",
        config.capacity.count(), context_bytes_.count(), context_bytes_.count());
  }
  if (entries >= kNone / 2) {
    throw Error("QP-context cache of {} bytes holds {} contexts: at most {} are supported",
                config.capacity.count(), entries, kNone / 2 - 1);
  }
  entries_ = static_cast<std::size_t>(entries);
  table_.assign(16, 0);
  table_shift_ = 60;
}

Time QpContextCache::access(uint32_t qp_num) {
  if (!modelled()) {
    ++hits_;
    return Time::zero();
  }
  uint32_t node = find(qp_num);
  if (node != kNone) {
    ++hits_;
    if (node != head_) {
      unlink(node);
      push_front(node);
    }
    return Time::zero();
  }
  ++misses_;
  if (nodes_.size() < entries_) {
    // Warm-up: the only phase that allocates.
    if ((nodes_.size() + 1) * 2 > table_.size()) grow_table();
    node = static_cast<uint32_t>(nodes_.size());
    nodes_.push_back({qp_num, kNone, kNone});
  } else {
    node = tail_;
    unlink(node);
    table_erase(nodes_[node].qp);
    nodes_[node].qp = qp_num;
    ++evictions_;
  }
  table_insert(qp_num, node);
  push_front(node);
  return config_.miss_penalty;
}

bool QpContextCache::contains(uint32_t qp_num) const {
  return modelled() && find(qp_num) != kNone;
}

std::size_t QpContextCache::home_slot(uint32_t qp_num) const {
  // Fibonacci hashing: the top bits of a multiplicative hash spread consecutive QP numbers.
  return static_cast<std::size_t>((qp_num * 0x9E3779B97F4A7C15ull) >> table_shift_);
}

uint32_t QpContextCache::find(uint32_t qp_num) const {
  const std::size_t mask = table_.size() - 1;
  for (std::size_t slot = home_slot(qp_num);; slot = (slot + 1) & mask) {
    const uint32_t entry = table_[slot];
    if (entry == 0) return kNone;
    if (nodes_[entry - 1].qp == qp_num) return entry - 1;
  }
}

void QpContextCache::table_insert(uint32_t qp_num, uint32_t node) {
  const std::size_t mask = table_.size() - 1;
  std::size_t slot = home_slot(qp_num);
  while (table_[slot] != 0) slot = (slot + 1) & mask;
  table_[slot] = node + 1;
}

void QpContextCache::table_erase(uint32_t qp_num) {
  const std::size_t mask = table_.size() - 1;
  std::size_t hole = home_slot(qp_num);
  while (nodes_[table_[hole] - 1].qp != qp_num) hole = (hole + 1) & mask;
  // Backward-shift deletion: pull later entries of the probe run into the hole, so lookups
  // never need tombstones.
  for (std::size_t j = (hole + 1) & mask; table_[j] != 0; j = (j + 1) & mask) {
    const std::size_t home = home_slot(nodes_[table_[j] - 1].qp);
    // The entry at j may move to the hole unless its home lies cyclically in (hole, j].
    const bool home_after_hole =
        ((home - hole) & mask) != 0 && ((home - hole) & mask) <= ((j - hole) & mask);
    if (!home_after_hole) {
      table_[hole] = table_[j];
      hole = j;
    }
  }
  table_[hole] = 0;
}

void QpContextCache::grow_table() {
  table_.assign(table_.size() * 2, 0);
  --table_shift_;
  for (uint32_t i = 0; i < nodes_.size(); ++i) table_insert(nodes_[i].qp, i);
}

void QpContextCache::unlink(uint32_t node) {
  Node& n = nodes_[node];
  if (n.prev != kNone)
    nodes_[n.prev].next = n.next;
  else
    head_ = n.next;
  if (n.next != kNone)
    nodes_[n.next].prev = n.prev;
  else
    tail_ = n.prev;
  n.prev = n.next = kNone;
}

void QpContextCache::push_front(uint32_t node) {
  nodes_[node].prev = kNone;
  nodes_[node].next = head_;
  if (head_ != kNone) nodes_[head_].prev = node;
  head_ = node;
  if (tail_ == kNone) tail_ = node;
}

}  // namespace bifrost::rnic
