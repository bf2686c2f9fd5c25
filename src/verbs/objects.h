#pragma once
// What the library hands the application: each rdma-core structure (laid out by the system's
// <infiniband/verbs.h>, so the application's inline helpers and field reads work) as the first
// member of a bifrost object, which the library finds again from the pointer it gets back.
// The soft RNIC's objects stay private to the library.
#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <type_traits>
#include <unordered_map>

#include "bifrost/rnic/completion_queue.h"
#include "bifrost/rnic/memory_region.h"
#include "bifrost/rnic/queue_pair.h"
#include "bifrost/world/address.h"

namespace bifrost::verbs {

class NicRuntime;
class ApplicationMemory;
struct Qp;

struct Context {
  ibv_context ibv;
  NicRuntime* nic;
  int async_write_fd;  // the write end of ibv.async_fd's pipe: no async event is ever raised
  std::unordered_map<uint32_t, Qp*>* qps;  // by QP number, for completions that need their QP
};

struct Pd {
  ibv_pd ibv;
  rnic::ProtectionDomain pd;
};

struct Mr {
  ibv_mr ibv;
  ApplicationMemory* memory;
};

struct CompChannel {
  ibv_comp_channel ibv;
  int write_fd;  // ibv.fd is the read end: one byte per event
  std::mutex* mutex;
  std::deque<ibv_cq*>* events;  // the CQs whose events wait to be read, oldest first
};

struct Cq {
  ibv_cq ibv;
  rnic::CompletionQueue* cq;
  bool armed;  // ibv_req_notify_cq was called and no event was raised since
  uint32_t events_raised;
};

struct Ah {
  ibv_ah ibv;
  world::Ipv4 dest;
  uint8_t traffic_class;
};

// A UD receive buffer, remembered so that poll_cq can fill the 40 bytes of GRH room.
struct UdReceive {
  uint64_t addr;
  uint32_t length;
};

struct Qp {
  ibv_qp ibv;
  rnic::QueuePair* qp;
  ibv_qp_cap cap;
  bool sq_sig_all;
  // Inline sends copy their bytes into slot (posted % slots) of this registered ring at post
  // time; a slot is reused only after `slots` more posts, by which time the send queue depth
  // the application keeps guarantees the old send completed.
  std::byte* inline_ring;
  uint32_t inline_slots;
  uint64_t inline_posted;
  uint32_t inline_lkey;
  ApplicationMemory* inline_memory;
  std::deque<UdReceive>* ud_receives;
};

// The bifrost object behind an rdma-core pointer the library made.
template <typename Object, typename Ibv>
Object& object_of(Ibv* ibv) {
  static_assert(std::is_standard_layout_v<Object> && offsetof(Object, ibv) == 0);
  return *reinterpret_cast<Object*>(ibv);
}

inline NicRuntime& nic_of(ibv_context* context) {
  return *object_of<Context>(context).nic;
}

}  // namespace bifrost::verbs
