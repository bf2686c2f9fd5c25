#pragma once
// The shared-buffer memory management unit of a switch. The buffer is cut into three
// partitions, and every frame sits wholly in one of them:
//   reserved  - a fixed guarantee per egress queue (port, priority);
//   shared    - the rest, used by all queues; a lossy queue may hold at most alpha x the free
//               shared bytes (dynamic threshold), checked after adding the frame;
//   headroom  - per (ingress port, lossless priority), filled only once that ingress is over
//               its xoff threshold, to absorb what is in flight until the upstream pauses.
// Lossless priorities are never dropped for the dynamic threshold; they drop only when their
// headroom overflows, which means flow control was too slow (kHeadroomExceeded). Departures
// free an ingress port's headroom first (see release()).
//
// A static partition (BufferPartition::kStatic; the Bifrost DCI paper's border switches,
// section VI-B: "Shared buffer is disabled in DCI switch") has no shared pool at all: a lossless
// (ingress port, priority) owns xoff (a fixed threshold) plus its headroom, a lossy frame may
// use only its egress queue's reserved_per_queue, and nothing is ever borrowed from elsewhere.
// The buffer's size is then the sum of those shares.
#include <cstdint>
#include <vector>

#include "bifrost/core/bytes.h"
#include "bifrost/net/drop_reason.h"
#include "bifrost/net/flowctl/flow_control.h"
#include "bifrost/net/frame.h"

namespace bifrost::net {

enum class BufferPartition : uint8_t { kShared, kStatic };

struct SharedBufferConfig {
  Bytes total = Bytes::MiB(12);         // kShared only: kStatic is the sum of its shares
  Bytes reserved_per_queue = Bytes(0);  // per egress (port, priority)
  double alpha = 1.0;                   // dynamic threshold for lossy queues
  BufferPartition partition = BufferPartition::kShared;
};

// kPort: a lossless ingress's own share below xoff in a static partition.
enum class BufferPool : uint8_t { kReserved, kShared, kHeadroom, kPort };

struct Admission {
  bool admitted = false;
  BufferPool pool = BufferPool::kShared;
  DropReason reason = DropReason::kNoBuffer;  // when not admitted
};

class SharedBuffer final : public IngressBuffer {
 public:
  // Throws Error for a bad configuration (alpha, or reservations larger than the buffer; in a
  // static partition, a lossless ingress with a dynamic xoff, which needs a shared pool).
  SharedBuffer(const SharedBufferConfig& config, uint32_t ports);

  // Sets how frames of `priority` from ingress `port` are treated; resizes the shared pool.
  // Throws Error if reservations and headroom no longer fit in the buffer.
  void set_ingress_limits(uint32_t port, int priority, const IngressLimits& limits);

  Admission admit(uint32_t in_port, uint32_t out_port, int priority, uint32_t frame_bytes);
  void release(uint32_t in_port, uint32_t out_port, int priority, uint32_t frame_bytes,
               BufferPool pool);

  IngressUsage ingress_usage(uint32_t port, int priority) const override;

  Bytes total() const { return Bytes(total_); }
  Bytes used() const { return Bytes(reserved_used_ + shared_used_ + headroom_used_ + port_used_); }
  bool is_static() const { return config_.partition == BufferPartition::kStatic; }
  Bytes shared_size() const { return Bytes(shared_size_); }
  Bytes shared_used() const { return Bytes(shared_used_); }
  Bytes shared_free() const { return Bytes(shared_size_ - shared_used_); }
  Bytes headroom_used() const { return Bytes(headroom_used_); }
  double alpha() const { return config_.alpha; }
  // Bytes of one egress queue by partition (headroom bytes later counted as shared, see
  // release(), stay outside every queue's shared count).
  Bytes queue_shared(uint32_t out_port, int priority) const {
    return Bytes(queues_[index(out_port, priority)].shared);
  }
  Bytes queue_reserved(uint32_t out_port, int priority) const {
    return Bytes(queues_[index(out_port, priority)].reserved);
  }
  // The most headroom (ingress port, priority) has held at once.
  Bytes peak_headroom(uint32_t port, int priority) const {
    return Bytes(ingress_[index(port, priority)].peak_headroom);
  }

 private:
  struct QueueState {
    uint64_t reserved = 0;
    uint64_t shared = 0;
  };
  struct IngressState {
    uint64_t buffered = 0;  // reserved + shared bytes from this ingress
    uint64_t headroom = 0;
    uint64_t peak_headroom = 0;
    IngressLimits limits;
  };
  static std::size_t index(uint32_t port, int priority) {
    return std::size_t{port} * kPriorities + static_cast<std::size_t>(priority);
  }
  void resize_shared_pool();
  void size_static_partition();
  uint64_t effective_xoff(const IngressState& in, uint64_t free) const;
  Admission admit_static(QueueState& q, IngressState& in, uint64_t bytes);

  SharedBufferConfig config_;
  uint32_t ports_;
  uint64_t shared_size_ = 0;
  uint64_t reserved_used_ = 0;
  uint64_t shared_used_ = 0;
  uint64_t headroom_used_ = 0;
  uint64_t port_used_ = 0;  // kPort bytes (static partition)
  uint64_t total_ = 0;
  std::vector<QueueState> queues_;
  std::vector<IngressState> ingress_;
};

}  // namespace bifrost::net
