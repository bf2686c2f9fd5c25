#pragma once
// Host memory as the NIC's DMA engine sees it. The NIC reads a packet's payload from the
// sender's memory and writes it into the receiver's memory; both sides go through HostMemory.
//
// Two implementations: ByteMemory holds real bytes (the real runtime, small tests) and
// TokenMemory holds content descriptors (the simulator), so that a 1 GiB message costs a few map
// entries instead of 1 GiB while its integrity can still be checked end to end.
//
// Pattern content: pattern `seed` is an endless deterministic byte stream; byte o of it is
// pattern_byte(seed, o). Seed 0 is all zeros, which is also what never-written memory holds.
// A payload without bytes names pattern content by its token: seed << 40 | offset.
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "bifrost/world/packet.h"

namespace bifrost::rnic {

inline constexpr uint32_t kPatternSeedLimit = 1u << 24;             // seeds are 24 bits
inline constexpr uint64_t kPatternOffsetLimit = uint64_t{1} << 40;  // offsets are 40 bits

// Byte `offset` of pattern `seed`. Word w = offset / 8 is the w-th output (from 0) of a
// SplitMix64 generator seeded with mix64(seed), i.e. mix64(mix64(seed) + w * 0x9E3779B97F4A7C15)
// (mix64 from core/rng.h); the byte is byte offset % 8 of that word, least significant first.
// Seed 0 is defined as all zeros.
uint8_t pattern_byte(uint32_t seed, uint64_t offset);
// Fills out with bytes [offset, offset + out.size()) of pattern `seed` (8 bytes per mix).
void fill_pattern(uint32_t seed, uint64_t offset, std::span<std::byte> out);

// Token of pattern content starting at pattern offset `offset`: seed << 40 | offset.
// Throws Error if seed >= 2^24 or offset >= 2^40.
uint64_t pattern_token(uint32_t seed, uint64_t offset);
inline uint32_t token_seed(uint64_t token) {
  return static_cast<uint32_t>(token >> 40);
}
inline uint64_t token_offset(uint64_t token) {
  return token & (kPatternOffsetLimit - 1);
}

// Writes the bytes a payload stands for into out: its real bytes when it has any, else the
// pattern its token names. Throws Error if out.size() != payload.length or if the payload has
// bytes of another size than its length.
void materialize(const world::Payload& payload, std::span<std::byte> out);

// The longest stretch of one kind of content starting at some address (see content_at).
struct ContentRun {
  uint64_t length = 0;
  bool is_pattern = true;
  uint32_t seed = 0;                 // pattern runs: the seed ...
  uint64_t pattern_offset = 0;       // ... and the pattern offset of the run's first byte
  std::span<const std::byte> bytes;  // byte runs: the bytes themselves (length of them)
};

// Addresses [base, base + size). Zero-length accesses never throw (as in RDMA, a zero-byte
// operation touches no memory); any other access outside the bounds throws Error.
class HostMemory {
 public:
  virtual ~HostMemory() = default;

  uint64_t base() const { return base_; }
  uint64_t size() const { return size_; }

  // Sets out.length = length and describes the content of [va, va + length): either a token
  // (pattern content, out.bytes cleared) or real bytes (out.bytes resized to length, token 0).
  virtual void read(uint64_t va, uint32_t length, world::Payload& out) const = 0;
  // As read, but real bytes are borrowed (out.borrowed) rather than copied where the memory
  // has them in one piece; valid until the memory is written or freed.
  virtual void borrow(uint64_t va, uint32_t length, world::Payload& out) const;
  // Stores the payload's content at va (its bytes if it has them, else its token's pattern).
  // A payload with bytes must have bytes.size() == length. Length 0 is a no-op.
  virtual void write(uint64_t va, const world::Payload& in) = 0;
  // Materializes [va, va + out.size()) into out (for checks and for software reading memory).
  virtual void copy_out(uint64_t va, std::span<std::byte> out) const = 0;
  // The content at va as one run of a single kind, 1 to max_length bytes long (0 if
  // max_length is 0). Throws Error if [va, va + max_length) is outside the memory. The bytes of
  // a byte run stay valid until the next write.
  virtual ContentRun content_at(uint64_t va, uint64_t max_length) const = 0;

 protected:
  // Throws Error if base + size wraps past 2^64.
  HostMemory(uint64_t base, uint64_t size);
  // Throws Error naming the range and the bounds if [va, va + length) is not inside.
  void check_range(uint64_t va, uint64_t length) const;
  // The common start of read(): checks the range and sets out's length; false (with out an
  // empty payload) when there is nothing to read.
  bool start_read(uint64_t va, uint32_t length, world::Payload& out) const;
  // Throws Error if the payload carries bytes of another size than its length.
  static void check_payload(const world::Payload& in);

 private:
  uint64_t base_;
  uint64_t size_;
};

// Real bytes, one contiguous buffer [base, base + size), zero-initialised. read() always yields
// bytes; write() accepts token payloads too and materializes them.
class ByteMemory final : public HostMemory {
 public:
  ByteMemory(uint64_t base, uint64_t size);

  void read(uint64_t va, uint32_t length, world::Payload& out) const override;
  void borrow(uint64_t va, uint32_t length, world::Payload& out) const override;
  void write(uint64_t va, const world::Payload& in) override;
  void copy_out(uint64_t va, std::span<std::byte> out) const override;
  ContentRun content_at(uint64_t va, uint64_t max_length) const override;

  // The whole buffer; bytes()[0] is address base().
  std::span<std::byte> bytes() { return buffer_; }
  std::span<const std::byte> bytes() const { return buffer_; }

 private:
  std::vector<std::byte> buffer_;
};

// Sparse content descriptors: a map of extents that tiles [base, base + size), each either a
// pattern run {seed, pattern offset of its first byte} or a run of real bytes. Unwritten memory
// is pattern seed 0 (zeros). After every write an extent merges with neighbours that continue
// it (same seed and contiguous pattern offsets, or bytes up to kMaxMergedBytes), so a message
// written packet by packet, in any order, ends as one extent. Packet-sized reads and writes cost
// O(log extents).
class TokenMemory final : public HostMemory {
 public:
  // Adjacent byte extents merge only up to this size: merging copies, and bounding it keeps a
  // stream of small byte writes linear.
  static constexpr uint64_t kMaxMergedBytes = 64 * 1024;

  // Nothing is allocated up front, so size may be huge (e.g. 2^40).
  TokenMemory(uint64_t base, uint64_t size);

  // read(): a token if the range lies in one continuous pattern run (one seed, contiguous
  // offsets); bytes otherwise (materialized when the range mixes kinds or seeds).
  void read(uint64_t va, uint32_t length, world::Payload& out) const override;
  void write(uint64_t va, const world::Payload& in) override;
  void copy_out(uint64_t va, std::span<std::byte> out) const override;
  ContentRun content_at(uint64_t va, uint64_t max_length) const override;

  // Fills [va, va + length) with pattern `seed` starting at pattern offset `pattern_offset`.
  // Throws Error if seed >= 2^24, if pattern_offset + length > 2^40 (every byte must be
  // nameable by a token) or if the range is outside the memory.
  void fill(uint64_t va, uint64_t length, uint32_t seed, uint64_t pattern_offset = 0);

  size_t extent_count() const { return extents_.size(); }

 private:
  struct Extent {
    uint64_t length = 0;
    uint32_t seed = 0;    // pattern extents (bytes empty)
    uint64_t offset = 0;  // pattern offset of the first byte; for seed 0 always its address
    std::vector<std::byte> bytes;  // byte extents: exactly length bytes
    bool is_bytes() const { return !bytes.empty(); }
  };
  using Map = std::map<uint64_t, Extent>;

  // The extent holding va (va must be inside the memory).
  Map::const_iterator find(uint64_t va) const;
  Map::iterator find(uint64_t va);
  // Splits *it at pos (inside it, not its start); returns the new right part.
  Map::iterator split(Map::iterator it, uint64_t pos);
  // Drops the part of *it before pos by re-keying its node (no allocation); returns it.
  Map::iterator trim_front(Map::iterator it, uint64_t pos);
  // Replaces [va, va + extent.length) with extent, `it` being the extent holding va, and merges
  // it with neighbours that continue it. Reuses nodes, so appending to a run allocates nothing.
  void store(Map::iterator it, uint64_t va, Extent extent);

  Map extents_;
};

// True if [va, va + length) of a and [vb, vb + length) of b hold the same content. Pattern runs
// with the same seed and aligned offsets compare equal without materializing, so comparing two
// messages held as tokens costs O(extents); only where kinds or seeds differ, or for bytes, is
// content materialized (in bounded chunks). Throws Error if either range is out of bounds.
bool same_content(const HostMemory& a, uint64_t va, const HostMemory& b, uint64_t vb,
                  uint64_t length);

// A packet's payload read for transmission: borrowed when `zero_copy`, else copied.
inline void read_payload(const HostMemory& memory, uint64_t va, uint32_t length, bool zero_copy,
                         world::Payload& out) {
  if (zero_copy) {
    memory.borrow(va, length, out);
  } else {
    memory.read(va, length, out);
  }
}

}  // namespace bifrost::rnic
