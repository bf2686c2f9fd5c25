#include "bifrost/rnic/recovery/fasr_pool.h"

#include <algorithm>
#include <bit>

#include "bifrost/core/error.h"
#include "bifrost/wire/headers.h"

namespace bifrost::rnic::recovery {
namespace {

std::vector<uint64_t> all_free(uint32_t n) {
  std::vector<uint64_t> words((n + 63) / 64, ~uint64_t{0});
  if (n % 64 != 0) words.back() = (uint64_t{1} << (n % 64)) - 1;
  return words;
}

// Takes the lowest free entry of an availability bitmap, as a priority encoder would.
int32_t take(std::vector<uint64_t>& free) {
  for (size_t w = 0; w < free.size(); ++w) {
    if (free[w] == 0) continue;
    const int bit = std::countr_zero(free[w]);
    free[w] &= free[w] - 1;
    return static_cast<int32_t>(w * 64 + static_cast<size_t>(bit));
  }
  return FasrPool::kNull;
}

void give_back(std::vector<uint64_t>& free, int32_t index) {
  free[static_cast<size_t>(index) / 64] |= uint64_t{1} << (index % 64);
}

}  // namespace

uint64_t fasr_block_entry_bits(const FasrPoolConfig& config) {
  const uint64_t pointer_bits = std::bit_width(config.blocks > 0 ? config.blocks - 1 : 0u);
  return config.block_bits + pointer_bits;
}

uint64_t fasr_unit_pointer_bits(const FasrPoolConfig& config) {
  // units + 1 values: one per unit and null.
  return std::max<uint64_t>(8, std::bit_width(config.units));
}

uint64_t fasr_unit_bits(const FasrPoolConfig& config) {
  return fasr_unit_layout(config.blocks).bits();
}

uint64_t fasr_pool_bytes(const FasrPoolConfig& config) {
  // One availability bit per unit and per block on top of what each holds.
  const uint64_t bits = uint64_t{config.units} * (fasr_unit_bits(config) + 1) +
                        uint64_t{config.blocks} * (fasr_block_entry_bits(config) + 1);
  return (bits + 7) / 8;
}

FasrPool::FasrPool(const FasrPoolConfig& config)
    : config_(config),
      units_(config.units),
      unit_free_(all_free(config.units)),
      block_free_(all_free(config.blocks)),
      bits_(config.blocks, 0),
      next_(config.blocks, kNull),
      unit_bits_(fasr_unit_bits(config)),
      block_entry_bits_(fasr_block_entry_bits(config)) {
  if (config.units == 0 || config.units > 4096 || config.blocks == 0 ||
      config.blocks > (1u << 20)) {
    throw Error("fasr: the pool needs 1..4096 units and 1..{} blocks (got {} and {})", 1u << 20,
                config.units, config.blocks);
  }
  if (config.block_bits != 10 && config.block_bits != 16) {
    throw Error("fasr: bitmap blocks are 10 or 16 bits (got {})", config.block_bits);
  }
}

void FasrPool::set_clock(const world::Scheduler& clock) {
  clock_ = &clock;
  last_change_ = clock.now();
  occupancy_ = FasrPoolOccupancy{};
  occupancy_.since = last_change_;
}

uint64_t FasrPool::bits_in_use() const {
  return uint64_t{usage_.units_in_use} * unit_bits_ +
         uint64_t{usage_.blocks_in_use} * block_entry_bits_;
}

void FasrPool::add_span(FasrPoolOccupancy& o, Time now) const {
  const Time span = now - last_change_;
  const auto ps = static_cast<double>(span.picoseconds());
  o.unit_ps += usage_.units_in_use * ps;
  o.block_ps += usage_.blocks_in_use * ps;
  o.bit_ps += static_cast<double>(bits_in_use()) * ps;
  if (usage_.units_in_use == config_.units) o.units_exhausted += span;
}

void FasrPool::account_time() {
  if (clock_ == nullptr) return;
  const Time now = clock_->now();
  add_span(occupancy_, now);
  last_change_ = now;
}

void FasrPool::note_peak() {
  usage_.peak_units = std::max(usage_.peak_units, usage_.units_in_use);
  usage_.peak_blocks = std::max(usage_.peak_blocks, usage_.blocks_in_use);
  usage_.peak_bits = std::max(usage_.peak_bits, bits_in_use());
}

FasrPoolOccupancy FasrPool::occupancy() const {
  if (clock_ == nullptr) return {};
  FasrPoolOccupancy o = occupancy_;
  o.until = clock_->now();
  add_span(o, o.until);
  return o;
}

int32_t FasrPool::allocate_unit() {
  const int32_t index = take(unit_free_);
  if (index == kNull) return kNull;
  units_[static_cast<size_t>(index)] = FasrUnit{};
  account_time();
  ++usage_.units_in_use;
  ++usage_.unit_allocations;
  note_peak();
  return index;
}

void FasrPool::release_unit(int32_t index) {
  release_blocks(index);
  give_back(unit_free_, index);
  account_time();
  --usage_.units_in_use;
}

int32_t FasrPool::allocate_block() {
  const int32_t block = take(block_free_);
  if (block == kNull) return kNull;
  bits_[static_cast<size_t>(block)] = 0;
  next_[static_cast<size_t>(block)] = kNull;
  account_time();
  ++usage_.blocks_in_use;
  ++usage_.block_allocations;
  note_peak();
  return block;
}

void FasrPool::free_block(int32_t block) {
  give_back(block_free_, block);
  account_time();
  --usage_.blocks_in_use;
}

uint32_t FasrPool::blocks_to_cover(int32_t index, uint32_t psn) const {
  const FasrUnit& u = unit(index);
  const int32_t offset = wire::psn_diff(psn, u.bitmap_base);
  if (offset < 0) return 0;
  const uint32_t needed = static_cast<uint32_t>(offset) / config_.block_bits + 1;
  return needed > u.block_count ? needed - u.block_count : 0;
}

int32_t FasrPool::find_block(int32_t index, uint32_t psn) const {
  const FasrUnit& u = unit(index);
  const int32_t offset = wire::psn_diff(psn, u.bitmap_base);
  if (offset < 0) return kNull;
  uint32_t k = static_cast<uint32_t>(offset) / config_.block_bits;
  if (k >= u.block_count) return kNull;
  // The hardware walks the list from the head; so does this.
  int32_t block = u.head;
  while (k-- > 0) block = next_[static_cast<size_t>(block)];
  return block;
}

void FasrPool::set(int32_t index, uint32_t psn) {
  FasrUnit& u = unit(index);
  for (uint32_t n = blocks_to_cover(index, psn); n > 0; --n) {
    const int32_t block = allocate_block();
    if (block == kNull) throw Error("fasr: bitmap pool exhausted while recording PSN {}", psn);
    if (u.tail == kNull) {
      u.head = block;
    } else {
      next_[static_cast<size_t>(u.tail)] = block;
    }
    u.tail = block;
    ++u.block_count;
  }
  const int32_t block = find_block(index, psn);
  const auto bit = static_cast<uint32_t>(wire::psn_diff(psn, u.bitmap_base)) % config_.block_bits;
  bits_[static_cast<size_t>(block)] |= static_cast<uint16_t>(1u << bit);
}

bool FasrPool::test(int32_t index, uint32_t psn) const {
  const int32_t block = find_block(index, psn);
  if (block == kNull) return false;
  const auto bit =
      static_cast<uint32_t>(wire::psn_diff(psn, unit(index).bitmap_base)) % config_.block_bits;
  return (bits_[static_cast<size_t>(block)] >> bit) & 1;
}

void FasrPool::release_before(int32_t index, uint32_t psn) {
  FasrUnit& u = unit(index);
  while (u.block_count > 0 &&
         wire::psn_diff(psn, wire::psn_add(u.bitmap_base, config_.block_bits)) >= 0) {
    const int32_t block = u.head;
    u.head = next_[static_cast<size_t>(block)];
    free_block(block);
    --u.block_count;
    u.bitmap_base = wire::psn_add(u.bitmap_base, config_.block_bits);
  }
  if (u.block_count == 0) u.head = u.tail = kNull;
}

void FasrPool::release_blocks(int32_t index) {
  FasrUnit& u = unit(index);
  for (int32_t block = u.head; block != kNull;) {
    const int32_t next = next_[static_cast<size_t>(block)];
    free_block(block);
    block = next;
  }
  u.head = u.tail = kNull;
  u.block_count = 0;
}

uint16_t FasrPool::compression_for(uint32_t run) const {
  if (run < config_.block_bits) return 0;  // under one block: acceleration disabled
  return static_cast<uint16_t>(std::min<uint32_t>(run, kMaxCompression));
}

uint32_t FasrPool::blocks_to_start(uint32_t hole, uint32_t last_arrived, uint32_t psn) const {
  const auto run = static_cast<uint32_t>(wire::psn_diff(last_arrived, hole));
  const uint32_t base = wire::psn_add(hole, 1u + compression_for(run));
  const auto offset = static_cast<uint32_t>(wire::psn_diff(psn, base));
  return offset / config_.block_bits + 1;
}

void FasrPool::start_bitmap(int32_t index, uint32_t hole, uint32_t last_arrived) {
  FasrUnit& u = unit(index);
  release_blocks(index);
  const auto run = static_cast<uint32_t>(wire::psn_diff(last_arrived, hole));
  u.compression = compression_for(run);
  u.bitmap_base = wire::psn_add(hole, 1u + u.compression);
  for (uint32_t p = u.bitmap_base; wire::psn_diff(last_arrived, p) >= 0; p = wire::psn_add(p, 1)) {
    set(index, p);
  }
}

bool FasrPool::recorded(int32_t index, uint32_t psn) const {
  const FasrUnit& u = unit(index);
  const uint32_t run_start = wire::psn_add(u.bitmap_base, wire::kPsnMask + 1 - u.compression);
  if (u.compression > 0 && wire::psn_diff(psn, run_start) >= 0 &&
      wire::psn_diff(psn, u.bitmap_base) < 0) {
    return true;
  }
  return test(index, psn);
}

}  // namespace bifrost::rnic::recovery
