#pragma once
// The level-1 SR state unit as the FaSR paper lays it out (section III-D): "SR state overhead
// 20B, 5 pairs of 1B bitmap tail pointer overhead 10B, 5*10b size compression-cnt and 5*3bit
// size lost-cnt overhead", which the paper rounds to 38 B (it is 305 bits, 38.1 B).
//
// Five bitmaps per unit because IRN, whose SR state set the 20 B are, keeps five per QP; each
// has its head and tail pointers, a compression-cnt and a lost-cnt. bifrost's halves of a QP
// (requester and responder) are separate objects that take a unit each and use one bitmap of
// it (docs/rnic.md, "FaSR").
#include <algorithm>
#include <bit>
#include <cstdint>

namespace bifrost::rnic::recovery {

struct FasrUnitLayout {
  static constexpr uint32_t kStateBits = 20 * 8;  // IRN's set of SR states
  static constexpr uint32_t kBitmaps = 5;
  static constexpr uint32_t kCompressionCntBits = 10;  // up to 1023 PSNs in a run
  static constexpr uint32_t kLostCntBits = 3;          // up to 7 PSNs missing
  static constexpr uint32_t kPaperPointerBits = 8;     // 1 B: names up to 256 blocks
  static constexpr uint32_t kPaperBytes = 38;          // the paper's rounding of 305 bits

  // Width of a head or tail pointer: the paper's byte, wider only for a pool of more than
  // 256 blocks.
  uint32_t pointer_bits = kPaperPointerBits;

  constexpr uint32_t per_bitmap_bits() const {
    return 2 * pointer_bits + kCompressionCntBits + kLostCntBits;
  }
  constexpr uint64_t bits() const { return kStateBits + kBitmaps * per_bitmap_bits(); }
};

// The paper's unit, checked where it is defined: 20 B of state, five bitmaps of two 1-byte
// pointers, a 10-bit compression-cnt and a 3-bit lost-cnt each, 305 bits, "38B".
static_assert(FasrUnitLayout{}.per_bitmap_bits() == 2 * 8 + 10 + 3);
static_assert(FasrUnitLayout{}.bits() == 20 * 8 + 10 * 8 + 5 * 10 + 5 * 3);
static_assert(FasrUnitLayout{}.bits() / 8 == FasrUnitLayout::kPaperBytes);

// The layout whose pointers name every one of `blocks` bitmap blocks.
constexpr FasrUnitLayout fasr_unit_layout(uint32_t blocks) {
  const auto needed = static_cast<uint32_t>(std::bit_width(blocks > 0 ? blocks - 1 : 0u));
  return FasrUnitLayout{std::max(FasrUnitLayout::kPaperPointerBits, needed)};
}

}  // namespace bifrost::rnic::recovery
