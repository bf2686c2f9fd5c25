#pragma once
// The sender's open WQEs by a reliable number that an ACK's cumulative part counts ("every
// number below the floor arrived"), so that processing a cumulative part costs what it newly
// covers instead of a scan of the whole window. Numbers are 64-bit counts handed out in
// increasing order; a resend carries its original's number again, and the entry then names
// the resend. Entries below the highest floor seen are gone: the floor only rises.
#include <cstddef>
#include <cstdint>

#include "numbered_slots.h"

namespace bifrost::transport {

class FloorIndex {
 public:
  // WQE `global` carries `number`. A number the floor has passed is not indexed (it arrived).
  void carry(uint64_t number, uint64_t global) {
    if (number < floor_) return;
    if (uint64_t* entry = slots_.find(number)) {
      *entry = global;
    } else if (number >= next_) {
      slots_.add(number) = global;
      next_ = number + 1;
    }
  }

  // The floor rose to `floor`: calls f(global) for each indexed number in [old floor, floor),
  // lowest first, and forgets them. A lower floor (an older ACK) does nothing.
  template <typename F>
  void advance(uint64_t floor, F&& f) {
    for (; floor_ < floor; ++floor_) {
      if (const uint64_t* global = slots_.find(floor_)) {
        const uint64_t g = *global;
        slots_.erase(floor_);
        f(g);
      }
    }
  }

  uint64_t floor() const { return floor_; }
  size_t size() const { return slots_.size(); }

 private:
  NumberedSlots<uint64_t> slots_;
  uint64_t floor_ = 0;
  uint64_t next_ = 0;  // above every number added
};

}  // namespace bifrost::transport
