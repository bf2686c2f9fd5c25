#pragma once
// A FIFO on a power-of-two ring that grows by doubling and never shrinks: once a queue has
// reached its peak length, pushing and popping never allocate.
#include <cstddef>
#include <utility>
#include <vector>

namespace bifrost::net {

template <typename T>
class RingQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return slots_.size(); }

  void push_back(T value) {
    if (size_ == slots_.size()) grow();
    slots_[(head_ + size_) & (slots_.size() - 1)] = std::move(value);
    ++size_;
  }
  // The i-th element from the front, i < size().
  T& operator[](std::size_t i) { return slots_[(head_ + i) & (slots_.size() - 1)]; }
  T& front() { return slots_[head_]; }
  const T& front() const { return slots_[head_]; }
  // Precondition: not empty.
  T pop_front() {
    T value = std::move(slots_[head_]);
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
    return value;
  }
  // Empties the queue, keeping its capacity.
  void clear() {
    while (size_ > 0) pop_front();
  }

 private:
  void grow() {
    std::vector<T> bigger(slots_.empty() ? 16 : slots_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) {
      bigger[i] = std::move(slots_[(head_ + i) & (slots_.size() - 1)]);
    }
    slots_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace bifrost::net
