#include "bifrost/net/shared_buffer.h"

#include <algorithm>
#include <cmath>

#include "bifrost/core/error.h"

namespace bifrost::net {

SharedBuffer::SharedBuffer(const SharedBufferConfig& config, uint32_t ports)
    : config_(config),
      ports_(ports),
      queues_(std::size_t{ports} * kPriorities),
      ingress_(std::size_t{ports} * kPriorities) {
  if (!std::isfinite(config.alpha) || config.alpha <= 0) {
    throw Error("buffer alpha (dynamic threshold) must be finite and > 0, got {}", config.alpha);
  }
  resize_shared_pool();
}

void SharedBuffer::set_ingress_limits(uint32_t port, int priority, const IngressLimits& limits) {
  if (port >= ports_ || priority < 0 || priority >= kPriorities) {
    throw Error("ingress limits for port {} priority {}: the switch has {} ports, priorities 0..7",
                port, priority, ports_);
  }
  IngressState& in = ingress_[index(port, priority)];
  const IngressLimits before = in.limits;
  in.limits = limits;
  if (!limits.lossless) in.limits.headroom = Bytes(0);
  try {
    resize_shared_pool();
  } catch (const Error&) {
    in.limits = before;
    throw;
  }
}

void SharedBuffer::resize_shared_pool() {
  if (is_static()) {
    size_static_partition();
    return;
  }
  const uint64_t reserved = config_.reserved_per_queue.count() * queues_.size();
  uint64_t headroom = 0;
  for (const IngressState& in : ingress_) headroom += in.limits.headroom.count();
  const uint64_t total = config_.total.count();
  if (reserved + headroom > total) {
    throw Error(
        "switch buffer of {} bytes cannot hold {} bytes reserved for {} queues plus {} bytes "
        "of PFC headroom; enlarge the buffer or reduce the reservations",
        total, reserved, queues_.size(), headroom);
  }
  const uint64_t size = total - reserved - headroom;
  if (size < shared_used_) {
    throw Error("cannot shrink the shared pool below the {} bytes in use", shared_used_);
  }
  shared_size_ = size;
  total_ = total;
}

// The configured xoff, but never more than this ingress could reach with the free shared bytes:
// a lossless frame that finds the pool full goes to headroom, and flow control must see that
// as crossing xoff.
uint64_t SharedBuffer::effective_xoff(const IngressState& in, uint64_t free) const {
  if (is_static()) return in.limits.xoff.resolve(Bytes(0)).count();  // fixed: checked on set
  return std::min(in.limits.xoff.resolve(Bytes(free)).count(), in.buffered + free);
}

Admission SharedBuffer::admit(uint32_t in_port, uint32_t out_port, int priority,
                              uint32_t frame_bytes) {
  QueueState& q = queues_[index(out_port, priority)];
  IngressState& in = ingress_[index(in_port, priority)];
  const uint64_t s = frame_bytes;
  if (is_static() && in.limits.lossless) return admit_static(q, in, s);
  Admission result;
  if (q.reserved + s <= config_.reserved_per_queue.count()) {
    q.reserved += s;
    reserved_used_ += s;
    in.buffered += s;
    result.admitted = true;
    result.pool = BufferPool::kReserved;
    return result;
  }
  if (is_static()) {  // a lossy frame whose queue's share is full: there is no pool to try
    result.reason = DropReason::kNoBuffer;
    return result;
  }
  const uint64_t free = shared_size_ - shared_used_;
  if (in.limits.lossless) {
    if (in.buffered + s <= effective_xoff(in, free)) {
      result.pool = BufferPool::kShared;
    } else if (in.headroom + s <= in.limits.headroom.count()) {
      result.pool = BufferPool::kHeadroom;
    } else {
      result.reason = DropReason::kHeadroomExceeded;
      return result;
    }
  } else {
    if (s > free) {
      result.reason = DropReason::kNoBuffer;
      return result;
    }
    // The queue's shared bytes after admission must not exceed alpha x the free bytes left.
    if (static_cast<double>(q.shared + s) > config_.alpha * static_cast<double>(free - s)) {
      result.reason = DropReason::kDynamicThreshold;
      return result;
    }
    result.pool = BufferPool::kShared;
  }
  if (result.pool == BufferPool::kShared) {
    q.shared += s;
    shared_used_ += s;
    in.buffered += s;
  } else {
    in.headroom += s;
    headroom_used_ += s;
    in.peak_headroom = std::max(in.peak_headroom, in.headroom);
  }
  result.admitted = true;
  return result;
}

// Queue accounting follows the frame's own partition. Ingress accounting frees headroom first,
// as switch MMUs do: a departing frame from this ingress, wherever it sat, takes its bytes off
// the port's headroom before its shared bytes, and headroom bytes that stay behind are counted
// as shared from then on. So headroom empties as soon as that many bytes of the port have left,
// and every pause episode can start with empty headroom. Reserved bytes are a per-queue
// guarantee and are freed as they are.
void SharedBuffer::release(uint32_t in_port, uint32_t out_port, int priority, uint32_t frame_bytes,
                           BufferPool pool) {
  QueueState& q = queues_[index(out_port, priority)];
  IngressState& in = ingress_[index(in_port, priority)];
  const uint64_t s = frame_bytes;
  if (pool == BufferPool::kReserved) {
    q.reserved -= s;
    reserved_used_ -= s;
    in.buffered -= s;
    return;
  }
  if (pool == BufferPool::kShared) q.shared -= s;
  const uint64_t from_headroom = std::min(s, in.headroom);
  in.headroom -= from_headroom;
  headroom_used_ -= from_headroom;
  in.buffered -= s - from_headroom;
  // In a static partition the rest sat in the port's own share, never in a pool.
  (is_static() ? port_used_ : shared_used_) -= s - from_headroom;
}

IngressUsage SharedBuffer::ingress_usage(uint32_t port, int priority) const {
  const IngressState& in = ingress_[index(port, priority)];
  return IngressUsage{.buffered = Bytes(in.buffered),
                      .headroom = Bytes(in.headroom),
                      .xoff = Bytes(effective_xoff(in, shared_size_ - shared_used_))};
}

}  // namespace bifrost::net
