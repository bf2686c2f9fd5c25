#pragma once
// FaSR's two-level selective-repeat memory, shared by every QP of a NIC (the FaSR paper,
// section III-D). Level 1: a few fixed-size SR state units, an availability bitmap, and a 1-byte
// pointer per QP that is null while the QP has no loss. Level 2: small bitmap blocks (10 or 16
// bits) that a unit chains into a singly linked list, allocated at the tail for out-of-order
// packets and released from the head as the expected PSN passes them.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bifrost/core/time.h"
#include "bifrost/rnic/recovery/fasr_unit_layout.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::rnic::recovery {

struct FasrPoolConfig {
  // The defaults are the largest pool of 20 units and 16-bit blocks within the 1600 B the
  // paper's memory comparison (section V-A) gives FaSR whose blocks the unit's 1-byte
  // pointers can name (256): 1,565 B.
  uint32_t units = 20;
  uint32_t blocks = 256;
  uint32_t block_bits = 16;  // 10 or 16
};

// The pool's NIC memory: units as FasrUnitLayout lays them out (305 bits with 1-byte
// pointers), blocks of block_bits plus a next pointer wide enough to name any block, and one
// availability bit per unit and per block, rounded up to whole bytes. The paper's III-D
// example (20 units, 70 blocks of 10 bits) comes to 923 B (its "0.92 KB").
uint64_t fasr_pool_bytes(const FasrPoolConfig& config);
// Bits one taken unit or one taken block holds (its availability bit aside): the unit's
// layout; block_bits plus the next pointer per block. What "bytes in use" counts.
uint64_t fasr_unit_bits(const FasrPoolConfig& config);
uint64_t fasr_block_entry_bits(const FasrPoolConfig& config);
// Bits of the per-QP pointer to a unit: the paper's byte, wider only for more than 255 units
// (null is one more value).
uint64_t fasr_unit_pointer_bits(const FasrPoolConfig& config);

// One SR state unit: what a QP in loss recovery keeps.
struct FasrUnit {
  uint32_t sack_high = 0;    // highest PSN that arrived out of order
  uint8_t lost_cnt = 0;      // PSNs missing in [RCV-NXT, sack-high], 3 bits
  bool overflow = false;     // lost_cnt passed 7 and stopped counting
  bool slow = false;         // slow path: out-of-order PSNs are in the compression run and blocks
  uint16_t compression = 0;  // received PSNs [bitmap_base - compression, bitmap_base), 10 bits
  uint32_t bitmap_base = 0;  // PSN of the head block's first bit
  int32_t head = -1;
  int32_t tail = -1;
  uint32_t block_count = 0;
};

struct FasrPoolUsage {
  uint32_t units_in_use = 0;
  uint32_t blocks_in_use = 0;
  uint32_t peak_units = 0;
  uint32_t peak_blocks = 0;
  uint64_t unit_allocations = 0;
  uint64_t block_allocations = 0;
  uint64_t fallbacks = 0;       // QPs sent to go-back-N because the pool was empty
  uint64_t unit_fallbacks = 0;  // of which for want of a unit (the rest: of bitmap blocks)
  // The sender's share (fasr_requester.h): units it took at a first SACK, and the times it
  // found none (or too few blocks) and went back to UNACK instead. The receiver's are the rest.
  uint64_t sender_unit_allocations = 0;
  uint64_t sender_fallbacks = 0;
  // The most bits of units and blocks in use at once (fasr_unit_bits, fasr_block_entry_bits).
  uint64_t peak_bits = 0;
  // Path statistics of every QP sharing the pool (the paper's Fig. 9(b)). A recovery episode
  // runs from the unit taken at the first out-of-order packet to RCV-NXT passing sack-high; it
  // is a fast recovery if it never left the fast path (one PSN missing throughout), a slow one
  // if it used the slow path at any time (an episode that returns to the fast path still
  // counts as slow). Packets are the out-of-order arrivals recorded, by the path the unit is on
  // once the packet is recorded (the packet that opens a second hole counts as slow).
  uint64_t fast_recoveries = 0;
  uint64_t slow_recoveries = 0;
  uint64_t fast_path_packets = 0;
  uint64_t slow_path_packets = 0;
};

// How full the pool was over time (the FaSR paper's Fig. 10), from when its clock was set to
// `until`: integrals of what was in use, so that mean = integral / observed().
struct FasrPoolOccupancy {
  Time since;
  Time until;
  double unit_ps = 0;    // units in use x picoseconds
  double block_ps = 0;   // blocks in use x picoseconds
  double bit_ps = 0;     // bits in use x picoseconds
  Time units_exhausted;  // time during which every unit was taken

  Time observed() const { return until - since; }
  // Time averages; 0 over an empty observation.
  double mean_units() const { return per_ps(unit_ps); }
  double mean_blocks() const { return per_ps(block_ps); }
  double mean_bytes() const { return per_ps(bit_ps) / 8; }

 private:
  double per_ps(double integral) const {
    const auto ps = static_cast<double>(observed().picoseconds());
    return ps > 0 ? integral / ps : 0;
  }
};

class FasrPool {
 public:
  static constexpr int32_t kNull = -1;
  static constexpr uint16_t kMaxCompression = (1u << FasrUnitLayout::kCompressionCntBits) - 1;
  static constexpr uint8_t kMaxLostCnt = (1u << FasrUnitLayout::kLostCntBits) - 1;

  // Throws Error for zero units or blocks, or a block size other than 10 or 16 bits.
  explicit FasrPool(const FasrPoolConfig& config);

  const FasrPoolConfig& config() const { return config_; }
  uint32_t block_bits() const { return config_.block_bits; }
  uint32_t free_units() const { return config_.units - usage_.units_in_use; }
  uint32_t free_blocks() const { return config_.blocks - usage_.blocks_in_use; }
  const FasrPoolUsage& usage() const { return usage_; }
  // A QP fell back to go-back-N; `no_unit`: for want of a unit (else of blocks).
  void count_fallback(bool no_unit) {
    ++usage_.fallbacks;
    if (no_unit) ++usage_.unit_fallbacks;
  }
  // The sender took a unit, or went back to UNACK for want of one (or of blocks).
  void count_sender_unit() { ++usage_.sender_unit_allocations; }
  void count_sender_fallback() { ++usage_.sender_fallbacks; }
  // Starts the time-weighted occupancy at clock.now(); the clock must outlive the pool. Without
  // a clock only the counters and peaks are kept.
  void set_clock(const world::Scheduler& clock);
  // The occupancy from set_clock to now; all zero without a clock.
  FasrPoolOccupancy occupancy() const;
  // One recovery episode ended; `slow`: it used the slow path.
  void count_recovery(bool slow) { ++(slow ? usage_.slow_recoveries : usage_.fast_recoveries); }
  // One out-of-order packet was recorded on the slow (or the fast) path.
  void count_recorded(bool slow) { ++(slow ? usage_.slow_path_packets : usage_.fast_path_packets); }

  // A cleared unit, or kNull if every unit is taken.
  int32_t allocate_unit();
  // Returns the unit and every block it holds.
  void release_unit(int32_t unit);
  FasrUnit& unit(int32_t index) { return units_[static_cast<size_t>(index)]; }
  const FasrUnit& unit(int32_t index) const { return units_[static_cast<size_t>(index)]; }

  // Blocks the unit would have to add for its bitmap to reach `psn` (0 if covered).
  uint32_t blocks_to_cover(int32_t unit, uint32_t psn) const;
  // Sets `psn`'s bit, adding blocks at the tail. Precondition: psn >= bitmap_base and
  // blocks_to_cover(unit, psn) <= free_blocks().
  void set(int32_t unit, uint32_t psn);
  // True if `psn` is in the bitmap's range and its bit is set.
  bool test(int32_t unit, uint32_t psn) const;
  // Releases head blocks that lie wholly before `psn`, moving bitmap_base past them.
  void release_before(int32_t unit, uint32_t psn);
  // Releases every block of the unit (the unit stays allocated).
  void release_blocks(int32_t unit);

  // The slow path's record, shared by both halves of a QP. A unit whose only hole is `hole`
  // (RCV-NXT on the receiver, UNACK on the sender) and whose PSNs (hole, last_arrived] all
  // arrived starts its bitmap: a run of at least one block is kept as compression-cnt (up to
  // 1023 PSNs, section III-D's bitmap acceleration), a shorter one as bits ("if the offset ...
  // is less than the size of one bitmap block ... the compression-cnt is set to zero").
  // Precondition: blocks_to_start(hole, last_arrived, last_arrived) <= free_blocks().
  void start_bitmap(int32_t unit, uint32_t hole, uint32_t last_arrived);
  // Blocks start_bitmap(hole, last_arrived) and then set(psn) would take (psn > last_arrived).
  uint32_t blocks_to_start(uint32_t hole, uint32_t last_arrived, uint32_t psn) const;
  // The compression-cnt start_bitmap gives a run of `run` arrived PSNs.
  uint16_t compression_for(uint32_t run) const;
  // True if `psn` lies in the unit's compression run or its bit is set.
  bool recorded(int32_t unit, uint32_t psn) const;

 private:
  int32_t allocate_block();
  void free_block(int32_t block);
  // The block holding `psn`, or kNull.
  int32_t find_block(int32_t unit, uint32_t psn) const;
  // Adds the time from the last change to `now`, at the current usage, to `o`.
  void add_span(FasrPoolOccupancy& o, Time now) const;
  // Called before units or blocks in use change: closes the span since the last change.
  void account_time();
  uint64_t bits_in_use() const;
  // After units or blocks in use grew.
  void note_peak();

  FasrPoolConfig config_;
  std::vector<FasrUnit> units_;
  std::vector<uint64_t> unit_free_;   // availability bitmaps: bit set = free
  std::vector<uint64_t> block_free_;  // (level 1 and level 2)
  std::vector<uint16_t> bits_;
  std::vector<int32_t> next_;
  FasrPoolUsage usage_;
  uint64_t unit_bits_;
  uint64_t block_entry_bits_;
  const world::Scheduler* clock_ = nullptr;
  Time last_change_;
  FasrPoolOccupancy occupancy_;
};

}  // namespace bifrost::rnic::recovery
