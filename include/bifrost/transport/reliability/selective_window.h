#pragma once
// The send-side window of a sender that numbers its WQEs itself, one global number per WQE
// across all its QPs, and learns their fate out of order: a selective ACK may settle any WQE
// while older ones are still open, a lost or refused WQE is settled without an ACK, and an
// ACK naming WQE n says that every older WQE still open was lost (one path delivers in order).
//
// A WQE stays in the window until it is settled *and* the NIC has completed it (the NIC may
// still read its buffer before that); such WQEs leave from the front. Numbers are dense, so a
// WQE is found by its offset from the front. A ring over a vector that only grows: opening a
// WQE allocates nothing once the window has held its largest depth.
//
// (WqeWindow, beside it, is the other kind: one in-order RC QP whose completions retire
// everything up to a signaled WQE.)
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bifrost::transport {

template <typename Wqe>
class SelectiveWindow {
 public:
  // Wqe needs `uint64_t global`, an unsigned `bytes`, and `bool done` (settled) and
  // `bool completed` (the NIC reported it). Numbers start at `first`.
  explicit SelectiveWindow(uint64_t first = 1) : front_(first), next_(first) {}

  // A fresh WQE of `bytes` with the next number, counted open; its other fields are Wqe{}'s.
  Wqe& open(uint32_t bytes) {
    if (size_ == ring_.size()) grow();
    Wqe& wqe = ring_[index(size_)];
    wqe = Wqe{};
    wqe.global = next_++;
    wqe.bytes = bytes;
    ++size_;
    ++open_count_;
    open_bytes_ += bytes;
    return wqe;
  }

  // The WQE numbered `global`, or nullptr if it left the window (or was never opened).
  Wqe* find(uint64_t global) {
    if (global < front_ || global >= next_) return nullptr;
    return &ring_[index(global - front_)];
  }

  // Settles an open WQE (acknowledged, lost or abandoned): it no longer counts as open.
  // Settling a settled WQE is a no-op.
  void settle(Wqe& wqe) {
    if (wqe.done) return;
    wqe.done = true;
    --open_count_;
    open_bytes_ -= wqe.bytes;
    if (wqe.completed) --open_sent_count_;
  }

  // The NIC reported the WQE's send completion: its data has left (or, with an error, never
  // will). Marking it twice is a no-op.
  void complete(Wqe& wqe) {
    if (wqe.completed) return;
    wqe.completed = true;
    if (!wqe.done) ++open_sent_count_;
  }

  // Calls f(wqe) for each WQE still open numbered below `global` (all if `global` is past the
  // newest), oldest first. f may settle it; it must not open or retire WQEs.
  template <typename F>
  void for_each_open_before(uint64_t global, F&& f) {
    for_each_open_between(front_, global, f);
  }
  // The same for the WQEs numbered from `from` (the ones before it are not visited): a caller
  // that knows nothing older is open pays only for the range it names.
  template <typename F>
  void for_each_open_between(uint64_t from, uint64_t before, F&& f) {
    for (size_t i = from > front_ ? from - front_ : 0; i < size_; ++i) {
      Wqe& wqe = ring_[index(i)];
      if (wqe.global >= before) break;
      if (!wqe.done) f(wqe);
    }
  }
  template <typename F>
  void for_each_open(F&& f) {
    for_each_open_before(next_, f);
  }

  // Drops the WQEs at the front that are settled and completed.
  void retire() {
    while (size_ > 0 && ring_[head_].done && ring_[head_].completed) {
      head_ = (head_ + 1) & mask();
      --size_;
      ++front_;
    }
  }

  size_t open_count() const { return open_count_; }
  // Open WQEs the NIC has completed: the ones that can be lost on the wire. The others still
  // wait in the sender's NIC (behind other QPs' WQEs, or paced).
  size_t open_sent_count() const { return open_sent_count_; }
  uint64_t open_bytes() const { return open_bytes_; }
  // WQEs held, open or waiting for their completion.
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The number the next WQE gets.
  uint64_t next() const { return next_; }

 private:
  size_t mask() const { return ring_.size() - 1; }
  size_t index(size_t offset) const { return (head_ + offset) & mask(); }
  void grow() {
    std::vector<Wqe> bigger(ring_.empty() ? 64 : 2 * ring_.size());  // a power of two
    for (size_t i = 0; i < size_; ++i) bigger[i] = ring_[index(i)];
    ring_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<Wqe> ring_;
  size_t head_ = 0;
  size_t size_ = 0;
  uint64_t front_;  // the number of ring_[head_]
  uint64_t next_;
  size_t open_count_ = 0;
  size_t open_sent_count_ = 0;
  uint64_t open_bytes_ = 0;
};

}  // namespace bifrost::transport
