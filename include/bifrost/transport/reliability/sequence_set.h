#pragma once
// The set of reliable numbers a receiver has accepted: everything below a floor plus a bitmap
// of the `window` numbers above it. Duplicates (retransmissions the receiver already had) are
// recognised in O(1) with no allocation after construction.
#include <cstdint>
#include <vector>

namespace bifrost::transport {

class SequenceSet {
 public:
  enum class Insert : uint8_t { added, duplicate, out_of_window };

  // `window` is rounded up to a multiple of 64. Numbers start at `first`.
  explicit SequenceSet(uint32_t window = 4096, uint64_t first = 0);

  // Adds n. duplicate: n was already in (or below the floor); out_of_window: n is `window` or
  // more above the floor and is not recorded.
  Insert insert(uint64_t n);
  bool contains(uint64_t n) const;
  // Moves the floor up to `floor`, forgetting any number below it that never arrived (treated
  // as received from now on). Returns how many such holes were forgotten.
  uint64_t raise_floor(uint64_t floor);
  // Every number below the floor is in the set; the floor itself is not.
  uint64_t floor() const { return floor_; }

  // The 64-bit number whose low `bits` bits are `value`, nearest to the floor (within half the
  // wire range either side): how a wrapped wire number is read.
  uint64_t extend(uint64_t value, unsigned bits) const;

 private:
  bool test(uint64_t n) const;
  void set(uint64_t n);
  void clear(uint64_t n);

  std::vector<uint64_t> words_;
  uint64_t window_;
  uint64_t floor_;
};

}  // namespace bifrost::transport
