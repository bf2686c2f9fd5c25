#pragma once
// Entries keyed by numbers handed out in increasing order (the sender's message numbers, write
// sequence numbers, reply numbers and read ids), each in a slot of a ring indexed by its
// number: found in O(1) without hashing, and added and removed without touching the heap once
// the ring has grown to the widest span of live numbers (oldest live to newest). A slot keeps
// its T between uses, so the caller may reuse what it owns (a vector's capacity).
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "bifrost/core/error.h"

namespace bifrost::transport {

template <typename T>
class NumberedSlots {
 public:
  // The slot of `number`, live from now on, holding whatever its last user left (reset what
  // you use). Numbers must increase from one add to the next.
  T& add(uint64_t number) {
    if (number < end_) throw Error("NumberedSlots: {} added after {}", number, end_ - 1);
    if (live_ == 0) begin_ = number;  // nothing older to keep: the span starts here
    while (number - begin_ >= slots_.size()) grow();
    for (uint64_t n = end_ > begin_ ? end_ : begin_; n < number; ++n) slot(n).live = false;
    end_ = number + 1;
    Slot& s = slot(number);
    s.live = true;
    ++live_;
    return s.value;
  }

  T* find(uint64_t number) {
    if (number < begin_ || number >= end_) return nullptr;
    Slot& s = slot(number);
    return s.live ? &s.value : nullptr;
  }
  const T* find(uint64_t number) const { return const_cast<NumberedSlots*>(this)->find(number); }
  // The live entry of `number`; throws Error if there is none.
  T& at(uint64_t number) {
    T* value = find(number);
    if (value == nullptr) throw Error("NumberedSlots: no entry {}", number);
    return *value;
  }

  // Frees the slot of `number` (no-op if it is not live); its T stays for the next user.
  void erase(uint64_t number) {
    if (find(number) == nullptr) return;
    slot(number).live = false;
    --live_;
    while (begin_ < end_ && !slot(begin_).live) ++begin_;
  }

  // Calls f(number, value) for every live entry, oldest first. f must not add or erase.
  template <typename F>
  void for_each(F&& f) {
    for (uint64_t n = begin_; n < end_; ++n) {
      if (Slot& s = slot(n); s.live) f(n, s.value);
    }
  }

  void clear() {
    for (uint64_t n = begin_; n < end_; ++n) slot(n).live = false;
    live_ = 0;
    begin_ = end_;
  }
  bool empty() const { return live_ == 0; }
  size_t size() const { return live_; }

 private:
  struct Slot {
    bool live = false;
    T value{};
  };
  Slot& slot(uint64_t number) { return slots_[number & (slots_.size() - 1)]; }
  void grow() {
    std::vector<Slot> bigger(slots_.empty() ? 64 : 2 * slots_.size());  // a power of two
    for (uint64_t n = begin_; n < end_; ++n) {
      if (Slot& s = slot(n); s.live) bigger[n & (bigger.size() - 1)] = std::move(s);
    }
    slots_ = std::move(bigger);
  }

  std::vector<Slot> slots_;
  uint64_t begin_ = 0;  // no live number is below it
  uint64_t end_ = 0;    // every number added is below it
  size_t live_ = 0;
};

}  // namespace bifrost::transport
