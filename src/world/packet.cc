#include "bifrost/world/packet.h"

#include <atomic>
#include <deque>

namespace bifrost::world {
namespace {

// Packets live in a deque (stable addresses, no per-packet allocation once warm) and are
// handed out from a free list. One pool per thread: each world runs one control loop a thread.
class PacketPool {
 public:
  Packet* acquire() {
    if (free_.empty()) {
      storage_.emplace_back();
      return &storage_.back();
    }
    Packet* p = free_.back();
    free_.pop_back();
    return p;
  }
  void release(Packet* p) {
    p->clear();
    free_.push_back(p);
  }
  std::size_t allocated() const { return storage_.size(); }

 private:
  std::deque<Packet> storage_;
  std::vector<Packet*> free_;
};

std::atomic<PacketPool*> shared_pool{nullptr};

PacketPool& pool() {
  if (PacketPool* shared = shared_pool.load(std::memory_order_relaxed)) return *shared;
  thread_local PacketPool instance;
  return instance;
}

}  // namespace

void Packet::clear() {
  src = {};
  dst = {};
  dscp = 0;
  ecn = 0;
  roce = {};
  payload.length = 0;
  payload.token = 0;
  payload.bytes.clear();
  payload.borrowed = {};
  arrival = Time::zero();
}

void detail::PacketRecycler::operator()(Packet* p) const noexcept {
  pool().release(p);
}

PacketPtr make_packet() {
  return PacketPtr(pool().acquire());
}

std::size_t packets_allocated() {
  return pool().allocated();
}

void share_packet_pool_between_threads() {
  if (shared_pool.load() != nullptr) return;
  shared_pool.store(new PacketPool());  // never freed: packets may be returned at exit
}

}  // namespace bifrost::world
