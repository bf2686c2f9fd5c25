#pragma once
// The send-side window of one in-order QP: the WQEs posted and not yet retired, oldest first.
// An RC QP completes its send queue in order, so one signaled completion retires every
// unsignaled WQE posted before it: the window hands them back with it. After the QP fails,
// what is left in the window (the failed WQE and the ones the NIC flushed behind it) is what
// must go again on another QP.
//
// A ring over a vector that only grows, so posting allocates nothing once the window has held
// its largest depth.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bifrost/core/error.h"

namespace bifrost::transport {

template <typename Wqe>
class WqeWindow {
 public:
  // Wqe must have a `uint64_t wr_id` and a `uint64_t bytes`; wr_ids must increase.
  void post(const Wqe& wqe) {
    if (size_ > 0 && wqe.wr_id <= back().wr_id) {
      throw Error("WqeWindow: wr_id {} posted after {}", wqe.wr_id, back().wr_id);
    }
    if (size_ == ring_.size()) grow();
    ring_[(head_ + size_) % ring_.size()] = wqe;
    ++size_;
    bytes_ += wqe.bytes;
  }

  // The completion of `wr_id` on an in-order QP: retires it and everything posted before it,
  // calling retired(wqe) oldest first. Returns how many retired (0: not in the window, e.g. a
  // completion of a WQE the window already gave up).
  template <typename Retired>
  size_t complete_through(uint64_t wr_id, Retired&& retired) {
    if (size_ == 0 || wr_id < front().wr_id || wr_id > back().wr_id) return 0;
    size_t n = 0;
    while (size_ > 0 && front().wr_id <= wr_id) {
      const Wqe wqe = front();
      pop_front();
      ++n;
      retired(wqe);
    }
    return n;
  }

  // Empties the window, calling taken(wqe) oldest first: after a QP failure, the WQEs to post
  // again elsewhere.
  template <typename Taken>
  void take_all(Taken&& taken) {
    while (size_ > 0) {
      const Wqe wqe = front();
      pop_front();
      taken(wqe);
    }
  }

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  uint64_t bytes() const { return bytes_; }
  const Wqe& front() const { return ring_[head_]; }
  const Wqe& back() const { return ring_[(head_ + size_ - 1) % ring_.size()]; }

 private:
  void pop_front() {
    bytes_ -= ring_[head_].bytes;
    head_ = (head_ + 1) % ring_.size();
    --size_;
  }
  void grow() {
    std::vector<Wqe> bigger(ring_.empty() ? 16 : 2 * ring_.size());
    for (size_t i = 0; i < size_; ++i) bigger[i] = ring_[(head_ + i) % ring_.size()];
    ring_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<Wqe> ring_;
  size_t head_ = 0;
  size_t size_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace bifrost::transport
