#pragma once
// One bit per PSN over a window [base, base + capacity), the data structure of every
// selective-repeat engine (IRN keeps several per QP). Stored as a ring of 64-bit words, so
// sliding the window forward clears only the bits it leaves behind.
#include <cstdint>
#include <vector>

namespace bifrost::rnic::recovery {

class PsnBitmap {
 public:
  // capacity is rounded up to a power of two of at least 64 bits (at most 2^23).
  explicit PsnBitmap(uint32_t capacity_bits, uint32_t base = 0);

  uint32_t base() const { return base_; }
  uint32_t capacity() const { return capacity_; }
  // True if `psn` lies in [base, base + capacity).
  bool in_window(uint32_t psn) const;
  // Precondition: in_window(psn).
  bool test(uint32_t psn) const;
  void set(uint32_t psn);
  void clear(uint32_t psn);
  // Moves the base to `new_base` (at or after the current base), clearing the bits passed.
  void slide_to(uint32_t new_base);
  // Clears every bit; the base moves to `new_base`.
  void reset(uint32_t new_base);
  // Moves the window to `base`: forward only while bits are set, anywhere (backwards too) when
  // empty, since a QP's first PSN is arbitrary (0xFFFFF0 is "behind" the initial base 0) and
  // slide_to alone would leave the window stuck behind the PSNs in use until they wrap.
  void move_to(uint32_t base) {
    if (count_ == 0) {
      reset(base);
    } else {
      slide_to(base);
    }
  }
  // Number of set bits in the window.
  uint32_t count() const { return count_; }

 private:
  uint32_t slot(uint32_t psn) const;

  std::vector<uint64_t> words_;
  uint32_t capacity_;
  uint32_t base_;
  uint32_t count_ = 0;
};

}  // namespace bifrost::rnic::recovery
