// Pattern content, payload materialization, ByteMemory and content comparison. TokenMemory lives
// in host_memory_token.cc.
#include "bifrost/rnic/host_memory.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include "bifrost/core/error.h"
#include "bifrost/core/rng.h"

namespace bifrost::rnic {
namespace {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

uint64_t pattern_word(uint64_t key, uint64_t word) {
  return mix64(key + word * kGolden);
}

void require_exact_bytes(const world::Payload& payload) {
  const auto bytes = payload.real_bytes();
  if (!bytes.empty() && bytes.size() != payload.length) {
    throw Error(
        "payload of length {} carries {} bytes; a payload with bytes must carry exactly "
        "its length",
        payload.length, bytes.size());
  }
}

}  // namespace

uint8_t pattern_byte(uint32_t seed, uint64_t offset) {
  if (seed == 0) return 0;
  const uint64_t word = pattern_word(mix64(seed), offset / 8);
  return static_cast<uint8_t>(word >> (8 * (offset % 8)));
}

void fill_pattern(uint32_t seed, uint64_t offset, std::span<std::byte> out) {
  if (seed == 0) {
    std::fill(out.begin(), out.end(), std::byte{0});
    return;
  }
  const uint64_t key = mix64(seed);
  size_t i = 0;
  while (i < out.size()) {
    const uint64_t word = pattern_word(key, offset / 8);
    const auto first = static_cast<unsigned>(offset % 8);
    const size_t take = std::min<size_t>(8 - first, out.size() - i);
    for (size_t k = 0; k < take; ++k) {
      out[i + k] = static_cast<std::byte>(word >> (8 * (first + k)));
    }
    i += take;
    offset += take;
  }
}

uint64_t pattern_token(uint32_t seed, uint64_t offset) {
  if (seed >= kPatternSeedLimit) {
    throw Error("pattern seed {} does not fit a token: seeds must be below 2^24 ({})", seed,
                kPatternSeedLimit);
  }
  if (offset >= kPatternOffsetLimit) {
    throw Error("pattern offset {:#x} does not fit a token: offsets must be below 2^40 ({:#x})",
                offset, kPatternOffsetLimit);
  }
  return uint64_t{seed} << 40 | offset;
}

void materialize(const world::Payload& payload, std::span<std::byte> out) {
  if (out.size() != payload.length) {
    throw Error("cannot materialize a {}-byte payload into a {}-byte buffer", payload.length,
                out.size());
  }
  require_exact_bytes(payload);
  if (const auto bytes = payload.real_bytes(); !bytes.empty()) {
    std::memcpy(out.data(), bytes.data(), out.size());
    return;
  }
  fill_pattern(token_seed(payload.token), token_offset(payload.token), out);
}

HostMemory::HostMemory(uint64_t base, uint64_t size) : base_(base), size_(size) {
  if (size > std::numeric_limits<uint64_t>::max() - base) {
    throw Error(
        "host memory of {} bytes at {:#x} wraps past 2^64; choose a lower base or a "
        "smaller size",
        size, base);
  }
}

void HostMemory::check_range(uint64_t va, uint64_t length) const {
  if (length == 0) return;
  if (va >= base_ && length <= size_ && va - base_ <= size_ - length) return;
  const bool wraps = length > std::numeric_limits<uint64_t>::max() - va;
  throw Error("host memory access of {} bytes at [{:#x}, {}) is outside the memory [{:#x}, {:#x})",
              length, va, wraps ? std::string("past 2^64") : fmt::format("{:#x}", va + length),
              base_, base_ + size_);
}

void HostMemory::check_payload(const world::Payload& in) {
  require_exact_bytes(in);
}

// ---- ByteMemory ----------------------------------------------------------------------------

bool HostMemory::start_read(uint64_t va, uint32_t length, world::Payload& out) const {
  check_range(va, length);
  out.length = length;
  out.token = 0;
  out.borrowed = {};
  if (length == 0) out.bytes.clear();
  return length != 0;
}

ByteMemory::ByteMemory(uint64_t base, uint64_t size)
    : HostMemory(base, size), buffer_(static_cast<size_t>(size)) {}

void ByteMemory::read(uint64_t va, uint32_t length, world::Payload& out) const {
  if (!start_read(va, length, out)) return;
  const auto first = buffer_.begin() + static_cast<ptrdiff_t>(va - base());
  out.bytes.assign(first, first + length);
}

void ByteMemory::borrow(uint64_t va, uint32_t length, world::Payload& out) const {
  if (!start_read(va, length, out)) return;
  out.bytes.clear();
  out.borrowed = std::span(buffer_).subspan(va - base(), length);
}

void HostMemory::borrow(uint64_t va, uint32_t length, world::Payload& out) const {
  read(va, length, out);
}

void ByteMemory::write(uint64_t va, const world::Payload& in) {
  check_payload(in);
  if (in.length == 0) return;
  check_range(va, in.length);
  materialize(in, std::span(buffer_).subspan(va - base(), in.length));
}

void ByteMemory::copy_out(uint64_t va, std::span<std::byte> out) const {
  check_range(va, out.size());
  if (out.empty()) return;
  std::memcpy(out.data(), buffer_.data() + (va - base()), out.size());
}

ContentRun ByteMemory::content_at(uint64_t va, uint64_t max_length) const {
  check_range(va, max_length);
  if (max_length == 0) return ContentRun{};
  return ContentRun{.length = max_length,
                    .is_pattern = false,
                    .bytes = std::span(buffer_).subspan(va - base(), max_length)};
}

// ---- same_content --------------------------------------------------------------------------

namespace {

constexpr size_t kCompareChunk = 4096;

// Bytes [from, from + n) of a run, materialized into buffer when it is a pattern.
std::span<const std::byte> run_bytes(const ContentRun& run, uint64_t from, size_t n,
                                     std::span<std::byte> buffer) {
  if (!run.is_pattern) return run.bytes.subspan(from, n);
  fill_pattern(run.seed, run.pattern_offset + from, buffer.first(n));
  return buffer.first(n);
}

bool same_runs(const ContentRun& a, const ContentRun& b, uint64_t length) {
  if (a.is_pattern && b.is_pattern && a.seed == b.seed &&
      (a.seed == 0 || a.pattern_offset == b.pattern_offset)) {
    return true;
  }
  std::array<std::byte, kCompareChunk> buffer_a;
  std::array<std::byte, kCompareChunk> buffer_b;
  for (uint64_t done = 0; done < length;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kCompareChunk, length - done));
    const auto x = run_bytes(a, done, n, buffer_a);
    const auto y = run_bytes(b, done, n, buffer_b);
    if (std::memcmp(x.data(), y.data(), n) != 0) return false;
    done += n;
  }
  return true;
}

}  // namespace

bool same_content(const HostMemory& a, uint64_t va, const HostMemory& b, uint64_t vb,
                  uint64_t length) {
  // Both checks come first so that an out-of-range call throws even when content differs early.
  a.content_at(va, length);
  b.content_at(vb, length);
  for (uint64_t done = 0; done < length;) {
    const ContentRun ra = a.content_at(va + done, length - done);
    const ContentRun rb = b.content_at(vb + done, length - done);
    const uint64_t n = std::min(ra.length, rb.length);
    if (!same_runs(ra, rb, n)) return false;
    done += n;
  }
  return true;
}

}  // namespace bifrost::rnic
