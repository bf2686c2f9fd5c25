#include "bifrost/transport/reliability/sequence_set.h"

namespace bifrost::transport {

SequenceSet::SequenceSet(uint32_t window, uint64_t first)
    : words_((window + 63) / 64 == 0 ? 1 : (window + 63) / 64),
      window_(words_.size() * 64),
      floor_(first) {}

SequenceSet::Insert SequenceSet::insert(uint64_t n) {
  if (n < floor_) return Insert::duplicate;
  if (n - floor_ >= window_) return Insert::out_of_window;
  if (test(n)) return Insert::duplicate;
  set(n);
  while (test(floor_)) {
    clear(floor_);
    ++floor_;
  }
  return Insert::added;
}

uint64_t SequenceSet::raise_floor(uint64_t floor) {
  uint64_t holes = 0;
  for (; floor_ < floor; ++floor_) {
    if (test(floor_)) {
      clear(floor_);
    } else {
      ++holes;
    }
  }
  while (test(floor_)) {
    clear(floor_);
    ++floor_;
  }
  return holes;
}

bool SequenceSet::contains(uint64_t n) const {
  return n < floor_ || (n - floor_ < window_ && test(n));
}

uint64_t SequenceSet::extend(uint64_t value, unsigned bits) const {
  if (bits >= 64) return value;
  const uint64_t range = uint64_t{1} << bits;
  const uint64_t mask = range - 1;
  const uint64_t forward = (value - floor_) & mask;  // distance above the floor, mod range
  if (forward < range / 2) return floor_ + forward;
  const uint64_t back = range - forward;
  return back > floor_ ? floor_ + forward : floor_ - back;
}

bool SequenceSet::test(uint64_t n) const {
  const uint64_t slot = n % window_;
  return (words_[slot / 64] >> (slot % 64)) & 1;
}
void SequenceSet::set(uint64_t n) {
  const uint64_t slot = n % window_;
  words_[slot / 64] |= uint64_t{1} << (slot % 64);
}
void SequenceSet::clear(uint64_t n) {
  const uint64_t slot = n % window_;
  words_[slot / 64] &= ~(uint64_t{1} << (slot % 64));
}

}  // namespace bifrost::transport
