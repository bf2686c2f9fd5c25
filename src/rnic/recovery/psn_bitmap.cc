#include "bifrost/rnic/recovery/psn_bitmap.h"

#include "bifrost/wire/headers.h"

namespace bifrost::rnic::recovery {

namespace {

// A power of two of at least 64 bits, so that PSN modulo capacity survives the 2^24 wrap.
uint32_t round_capacity(uint32_t bits) {
  uint32_t c = 64;
  while (c < bits && c < (1u << 23)) c <<= 1;
  return c;
}

}  // namespace

PsnBitmap::PsnBitmap(uint32_t capacity_bits, uint32_t base)
    : words_(round_capacity(capacity_bits) / 64),
      capacity_(round_capacity(capacity_bits)),
      base_(base & wire::kPsnMask) {}

bool PsnBitmap::in_window(uint32_t psn) const {
  const int32_t d = wire::psn_diff(psn, base_);
  return d >= 0 && static_cast<uint32_t>(d) < capacity_;
}

// Bits are indexed by PSN modulo the capacity, so sliding never moves stored bits.
uint32_t PsnBitmap::slot(uint32_t psn) const {
  return psn % capacity_;
}

bool PsnBitmap::test(uint32_t psn) const {
  const uint32_t s = slot(psn);
  return (words_[s / 64] >> (s % 64)) & 1;
}

void PsnBitmap::set(uint32_t psn) {
  const uint32_t s = slot(psn);
  uint64_t& word = words_[s / 64];
  const uint64_t bit = uint64_t{1} << (s % 64);
  if ((word & bit) == 0) ++count_;
  word |= bit;
}

void PsnBitmap::clear(uint32_t psn) {
  const uint32_t s = slot(psn);
  uint64_t& word = words_[s / 64];
  const uint64_t bit = uint64_t{1} << (s % 64);
  if ((word & bit) != 0) --count_;
  word &= ~bit;
}

void PsnBitmap::slide_to(uint32_t new_base) {
  new_base &= wire::kPsnMask;
  const int32_t d = wire::psn_diff(new_base, base_);
  if (d <= 0) return;
  if (static_cast<uint32_t>(d) >= capacity_ || count_ == 0) {
    reset(new_base);
    return;
  }
  for (uint32_t psn = base_; psn != new_base; psn = wire::psn_add(psn, 1)) clear(psn);
  base_ = new_base;
}

void PsnBitmap::reset(uint32_t new_base) {
  for (uint64_t& w : words_) w = 0;
  count_ = 0;
  base_ = new_base & wire::kPsnMask;
}

}  // namespace bifrost::rnic::recovery
