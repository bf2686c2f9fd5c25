#pragma once
// The NIC's on-chip QP-context cache. A NIC keeps QP contexts in host memory and caches the hot
// ones on chip; a packet of a QP whose context is not cached waits while the context is fetched
// over PCIe. Past the cache's size throughput collapses (ConnectX-6 past about 256 QPs with
// IRN-sized state), which is the scalability argument of FaSR and SRNIC.
//
// The cache holds capacity / context_bytes contexts, where a context is the 256-byte base QP
// context plus the recovery engine's per-QP state, and evicts the least recently used. Capacity
// 0 means no cache is modelled and every access hits. access() is O(1) and, once the cache is
// full, allocates nothing: an LRU list threaded through a fixed node array, and an
// open-addressing hash table from QP number to node.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bifrost/core/bytes.h"
#include "bifrost/core/time.h"

namespace bifrost::rnic {

// The base QP context every QP keeps, before the recovery engine's state.
inline constexpr Bytes kBaseQpContextBytes{256};

struct QpContextCacheConfig {
  // On-chip bytes for contexts; 0 models no cache (every access hits).
  Bytes capacity{0};
  // Delay of a miss: fetching the context from host memory over PCIe.
  Time miss_penalty = Time::us(1);
  // Fetches in flight at once. 0: a miss stalls the receive pipeline for miss_penalty, so
  // misses are served one at a time behind each other. N > 0: each miss starts its fetch when
  // its packet arrives, up to N overlapping (ContextFetches); the packet waits for its context
  // and the packets behind it wait for the packet, but later misses need not.
  uint32_t concurrent_fetches = 0;
};

// Named NIC profiles.
namespace qp_cache_profile {
// ConnectX-6-like: room for exactly 256 contexts carrying `recovery_state_bytes` each, so with
// IRN's per-QP state throughput degrades past about 256 QPs.
QpContextCacheConfig cx6_like(Bytes recovery_state_bytes);
// The FaSR paper's NIC: 1.4 MB (decimal) of SRAM for QP contexts.
QpContextCacheConfig fasr_like();
}  // namespace qp_cache_profile

class QpContextCache {
 public:
  // Throws Error when a non-zero capacity cannot hold a single context.
  QpContextCache(QpContextCacheConfig config, Bytes recovery_state_bytes);

  // The extra delay this access costs: zero on a hit, miss_penalty on a miss. A miss inserts the
  // context as most recently used, evicting the least recently used one if the cache is full.
  Time access(uint32_t qp_num);
  // True if the context is cached; does not touch the LRU order or the counters.
  bool contains(uint32_t qp_num) const;

  // Whether a cache is modelled at all (capacity > 0).
  bool modelled() const { return entries_ > 0; }
  // Contexts the cache can hold: capacity / context_bytes (0 when not modelled).
  std::size_t entries() const { return entries_; }
  // Contexts cached now.
  std::size_t resident() const { return nodes_.size(); }
  Bytes context_bytes() const { return context_bytes_; }
  const QpContextCacheConfig& config() const { return config_; }

  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  uint64_t evictions() const { return evictions_; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Node {
    uint32_t qp;
    uint32_t prev;  // towards the most recently used end
    uint32_t next;  // towards the least recently used end
  };

  uint32_t find(uint32_t qp_num) const;  // node index or kNone
  std::size_t home_slot(uint32_t qp_num) const;
  void table_insert(uint32_t qp_num, uint32_t node);
  void table_erase(uint32_t qp_num);
  void grow_table();
  void unlink(uint32_t node);
  void push_front(uint32_t node);

  QpContextCacheConfig config_;
  Bytes context_bytes_;
  std::size_t entries_ = 0;
  std::vector<Node> nodes_;  // grows to entries_, then nodes are reused
  uint32_t head_ = kNone;    // most recently used
  uint32_t tail_ = kNone;    // least recently used
  // Linear-probing table of node index + 1 (0 = empty slot); size a power of two, load <= 1/2.
  std::vector<uint32_t> table_;
  int table_shift_ = 64;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
  uint64_t evictions_ = 0;
};

}  // namespace bifrost::rnic
