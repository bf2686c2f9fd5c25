// Host memory as the DMA engine sees it: pattern content and tokens, ByteMemory, TokenMemory's
// extent map (splits, merges, mixed content), same_content, and a property test that runs random
// operations on a TokenMemory and a ByteMemory reference side by side.
#include "bifrost/rnic/host_memory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "bifrost/core/rng.h"
#include "support/error_message.h"
#include "support/property.h"

namespace bifrost::rnic {
namespace {

using testing::error_of;
using Bytes = std::vector<std::byte>;

constexpr uint64_t kMiB = 1024 * 1024;

Bytes expected_pattern(uint32_t seed, uint64_t offset, size_t n) {
  Bytes out(n);
  for (size_t i = 0; i < n; ++i) out[i] = std::byte{pattern_byte(seed, offset + i)};
  return out;
}

Bytes contents(const HostMemory& m, uint64_t va, size_t n) {
  Bytes out(n);
  m.copy_out(va, out);
  return out;
}

Bytes materialized(const world::Payload& p) {
  Bytes out(p.length);
  materialize(p, out);
  return out;
}

world::Payload token_payload(uint32_t length, uint64_t token) {
  return world::Payload{.length = length, .token = token, .bytes = {}};
}

world::Payload bytes_payload(const Bytes& bytes) {
  return world::Payload{.length = static_cast<uint32_t>(bytes.size()), .token = 0, .bytes = bytes};
}

Bytes random_bytes(RandomStream& rng, size_t n) {
  Bytes out(n);
  for (auto& b : out) b = std::byte{static_cast<uint8_t>(rng.next_u64())};
  return out;
}

// Copies [src, src + length) of `from` to `to` at dst in packets of `mtu` bytes, in `order`.
void copy_packets(const HostMemory& from, uint64_t src, HostMemory& to, uint64_t dst,
                  uint64_t length, uint32_t mtu, const std::vector<uint64_t>& order) {
  world::Payload p;
  for (uint64_t i : order) {
    const uint64_t at = i * mtu;
    from.read(src + at, static_cast<uint32_t>(std::min<uint64_t>(mtu, length - at)), p);
    to.write(dst + at, p);
  }
}

std::vector<uint64_t> in_order(uint64_t length, uint32_t mtu) {
  std::vector<uint64_t> order((length + mtu - 1) / mtu);
  std::iota(order.begin(), order.end(), 0);
  return order;
}

std::vector<uint64_t> shuffled(std::vector<uint64_t> order, RandomStream& rng) {
  for (size_t i = order.size(); i > 1; --i)
    std::swap(order[i - 1], order[rng.uniform_int(0, i - 1)]);
  return order;
}

// ---- patterns and tokens -------------------------------------------------------------------

TEST(HostMemoryPattern, IsTheDocumentedSplitMixStreamAndSeedZeroIsZeros) {
  for (uint32_t seed : {1u, 2u, 77u, (1u << 24) - 1}) {
    for (uint64_t offset : {uint64_t{0}, uint64_t{1}, uint64_t{7}, uint64_t{8}, uint64_t{12345},
                            kPatternOffsetLimit - 1}) {
      const uint64_t word = mix64(mix64(seed) + offset / 8 * 0x9E3779B97F4A7C15ull);
      EXPECT_EQ(pattern_byte(seed, offset), static_cast<uint8_t>(word >> (8 * (offset % 8))));
      EXPECT_EQ(pattern_byte(seed, offset), pattern_byte(seed, offset));  // deterministic
    }
  }
  for (uint64_t offset : {uint64_t{0}, uint64_t{5}, uint64_t{1} << 39, ~uint64_t{0}}) {
    EXPECT_EQ(pattern_byte(0, offset), 0);
  }
  Bytes zeros(100, std::byte{0xAA});
  fill_pattern(0, 3, zeros);
  EXPECT_EQ(zeros, Bytes(100, std::byte{0}));
}

TEST(HostMemoryPattern, FillPatternMatchesPatternByteAtEveryAlignment) {
  for (uint64_t offset = 0; offset < 9; ++offset) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{29}}) {
      Bytes out(n);
      fill_pattern(42, offset, out);
      EXPECT_EQ(out, expected_pattern(42, offset, n)) << "offset " << offset << " n " << n;
    }
  }
}

TEST(HostMemoryPattern, LooksRandomAndSeedsDiffer) {
  const Bytes a = expected_pattern(1, 0, 64 * 1024);
  const Bytes b = expected_pattern(2, 0, 64 * 1024);
  std::set<std::byte> values(a.begin(), a.end());
  EXPECT_EQ(values.size(), 256u);
  size_t differing = 0;
  for (size_t i = 0; i < a.size(); ++i) differing += a[i] != b[i];
  EXPECT_GT(differing, a.size() * 99 / 100 - 300);  // about 255/256 of bytes differ
  EXPECT_NE(expected_pattern(1, 0, 64), expected_pattern(1, 1, 64));  // offsets matter
}

TEST(HostMemoryToken, RoundTripsAndRejectsOutOfRange) {
  for (uint32_t seed : {0u, 1u, 0xABCDEFu, (1u << 24) - 1}) {
    for (uint64_t offset : {uint64_t{0}, uint64_t{4096}, kPatternOffsetLimit - 1}) {
      const uint64_t token = pattern_token(seed, offset);
      EXPECT_EQ(token, uint64_t{seed} << 40 | offset);
      EXPECT_EQ(token_seed(token), seed);
      EXPECT_EQ(token_offset(token), offset);
    }
  }
  EXPECT_EQ(error_of([] { pattern_token(1u << 24, 0); }),
            "pattern seed 16777216 does not fit a token: seeds must be below 2^24 (16777216)");
  EXPECT_EQ(error_of([] { pattern_token(1, kPatternOffsetLimit); }),
            "pattern offset 0x10000000000 does not fit a token: offsets must be below 2^40 "
            "(0x10000000000)");
}

TEST(HostMemoryMaterialize, ExpandsTokensCopiesBytesAndChecksSizes) {
  EXPECT_EQ(materialized(token_payload(100, pattern_token(9, 1000))),
            expected_pattern(9, 1000, 100));
  EXPECT_EQ(materialized(token_payload(5, 0)), Bytes(5, std::byte{0}));
  const Bytes data{std::byte{1}, std::byte{2}, std::byte{3}};
  EXPECT_EQ(materialized(bytes_payload(data)), data);
  EXPECT_EQ(materialized(world::Payload{}), Bytes{});

  Bytes small(2);
  EXPECT_EQ(error_of([&] { materialize(bytes_payload(data), small); }),
            "cannot materialize a 3-byte payload into a 2-byte buffer");
  world::Payload bad{.length = 4, .token = 0, .bytes = data};
  Bytes four(4);
  EXPECT_EQ(error_of([&] { materialize(bad, four); }),
            "payload of length 4 carries 3 bytes; a payload with bytes must carry exactly its "
            "length");
}

// ---- ByteMemory ----------------------------------------------------------------------------

TEST(ByteMemory, ReadsAndWritesBytesAndTokens) {
  ByteMemory m(0x1000, 256);
  EXPECT_EQ(m.base(), 0x1000u);
  EXPECT_EQ(m.size(), 256u);
  EXPECT_EQ(contents(m, 0x1000, 256), Bytes(256, std::byte{0}));

  const Bytes data{std::byte{0xDE}, std::byte{0xAD}, std::byte{0xBE}, std::byte{0xEF}};
  m.write(0x1010, bytes_payload(data));
  world::Payload out{.length = 0, .token = 99, .bytes = {}};
  m.read(0x100F, 6, out);
  EXPECT_EQ(out.length, 6u);
  EXPECT_EQ(out.token, 0u);
  EXPECT_EQ(out.bytes, (Bytes{std::byte{0}, data[0], data[1], data[2], data[3], std::byte{0}}));
  EXPECT_EQ(m.bytes()[0x10], std::byte{0xDE});

  // A token payload is materialized; reading it back yields bytes, never a token.
  m.write(0x1080, token_payload(128, pattern_token(5, 64)));
  m.read(0x1080, 128, out);
  EXPECT_EQ(out.token, 0u);
  EXPECT_EQ(out.bytes, expected_pattern(5, 64, 128));
  const ContentRun run = m.content_at(0x1080, 16);
  EXPECT_FALSE(run.is_pattern);
  EXPECT_EQ(run.length, 16u);
  EXPECT_EQ(run.bytes.data(), m.bytes().data() + 0x80);
}

TEST(ByteMemory, OutOfRangeAccessesNameTheRangeAndTheBounds) {
  ByteMemory m(0x1000, 256);
  world::Payload out;
  EXPECT_EQ(error_of([&] { m.read(0x10F0, 32, out); }),
            "host memory access of 32 bytes at [0x10f0, 0x1110) is outside the memory [0x1000, "
            "0x1100)");
  EXPECT_EQ(error_of([&] { m.write(0xFFF, token_payload(1, 0)); }),
            "host memory access of 1 bytes at [0xfff, 0x1000) is outside the memory [0x1000, "
            "0x1100)");
  Bytes buf(2);
  EXPECT_EQ(error_of([&] { m.copy_out(~uint64_t{0}, buf); }),
            "host memory access of 2 bytes at [0xffffffffffffffff, past 2^64) is outside the "
            "memory [0x1000, 0x1100)");
  EXPECT_EQ(
      error_of([&] { m.write(0x1000, world::Payload{.length = 3, .token = 0, .bytes = buf}); }),
      "payload of length 3 carries 2 bytes; a payload with bytes must carry exactly its "
      "length");
  EXPECT_EQ(error_of([] { ByteMemory(~uint64_t{0} - 10, 20); }),
            "host memory of 20 bytes at 0xfffffffffffffff5 wraps past 2^64; choose a lower base or "
            "a smaller size");
  // The last byte and the whole memory are inside.
  EXPECT_EQ(error_of([&] { m.read(0x10FF, 1, out); }), "no error");
  EXPECT_EQ(error_of([&] { m.read(0x1000, 256, out); }), "no error");
}

// ---- TokenMemory ---------------------------------------------------------------------------

TEST(TokenMemory, FillThenReadGivesATokenWhoseMaterializationEqualsCopyOut) {
  TokenMemory m(0x10000, 1 * kMiB);
  EXPECT_EQ(m.extent_count(), 1u);
  m.fill(0x20000, 64 * 1024, 11, 500);
  EXPECT_EQ(m.extent_count(), 3u);  // zeros, the fill, zeros

  world::Payload out{.length = 0, .token = 0, .bytes = Bytes(10)};
  m.read(0x20000 + 100, 4096, out);
  EXPECT_EQ(out.length, 4096u);
  EXPECT_TRUE(out.bytes.empty());
  EXPECT_EQ(out.token, pattern_token(11, 600));
  EXPECT_EQ(materialized(out), contents(m, 0x20000 + 100, 4096));
  EXPECT_EQ(contents(m, 0x20000 + 100, 4096), expected_pattern(11, 600, 4096));

  // Unwritten memory reads as token 0: zeros.
  m.read(0x10000, 4096, out);
  EXPECT_EQ(out.token, 0u);
  EXPECT_TRUE(out.bytes.empty());
  EXPECT_EQ(materialized(out), Bytes(4096, std::byte{0}));

  // Across the edge of the fill the range mixes seeds: bytes.
  m.read(0x20000 - 10, 20, out);
  EXPECT_EQ(out.bytes.size(), 20u);
  Bytes edge(10, std::byte{0});
  const Bytes tail = expected_pattern(11, 500, 10);
  edge.insert(edge.end(), tail.begin(), tail.end());
  EXPECT_EQ(out.bytes, edge);
}

TEST(TokenMemory, InOrderPacketWritesOfACopiedMessageEndAsOneExtent) {
  const uint64_t length = 4 * kMiB + 100;  // the last packet is short
  TokenMemory src(0x100000, 64 * kMiB);
  src.fill(0x200000, length, 7, 0);
  TokenMemory dst(0x100000, 64 * kMiB);
  copy_packets(src, 0x200000, dst, 0x900000, length, 4096, in_order(length, 4096));
  EXPECT_EQ(dst.extent_count(), 3u);  // zeros, the message, zeros
  EXPECT_TRUE(same_content(src, 0x200000, dst, 0x900000, length));
  world::Payload whole;
  dst.read(0x900000, static_cast<uint32_t>(length), whole);
  EXPECT_EQ(whole.token, pattern_token(7, 0));
  EXPECT_TRUE(whole.bytes.empty());
  // The zeros around the message were not disturbed.
  EXPECT_EQ(contents(dst, 0x900000 - 8, 8), Bytes(8, std::byte{0}));
  EXPECT_EQ(contents(dst, 0x900000 + length, 8), Bytes(8, std::byte{0}));
}

TEST(TokenMemory, ShuffledPacketWritesEndAsOneExtentOnceComplete) {
  const uint64_t length = 4 * kMiB;
  TokenMemory src(0, 16 * kMiB);
  src.fill(0, length, 3, 1 * kMiB);
  TokenMemory dst(0, 16 * kMiB);
  RandomStream rng(5, "shuffle");
  const auto order = shuffled(in_order(length, 1024), rng);
  // Halfway the message is in pieces ...
  copy_packets(src, 0, dst, 8 * kMiB, length, 1024, {order.begin(), order.begin() + 2048});
  EXPECT_GT(dst.extent_count(), 100u);
  EXPECT_FALSE(same_content(src, 0, dst, 8 * kMiB, length));
  // ... and once every packet has arrived (some twice) it is one extent again.
  copy_packets(src, 0, dst, 8 * kMiB, length, 1024, order);
  EXPECT_EQ(dst.extent_count(), 3u);  // zeros, the message, zeros
  EXPECT_TRUE(same_content(src, 0, dst, 8 * kMiB, length));
  EXPECT_TRUE(same_content(dst, 8 * kMiB, src, 0, length));
}

TEST(TokenMemory, OverwriteInTheMiddleSplitsAndRestoringMerges) {
  TokenMemory m(0, 1 * kMiB);
  m.fill(0, 1 * kMiB, 3);
  ASSERT_EQ(m.extent_count(), 1u);
  m.write(4096, token_payload(1024, pattern_token(9, 0)));
  EXPECT_EQ(m.extent_count(), 3u);
  world::Payload out;
  m.read(4096, 1024, out);
  EXPECT_EQ(out.token, pattern_token(9, 0));
  m.read(4096 + 1024, 100, out);
  EXPECT_EQ(out.token, pattern_token(3, 4096 + 1024));  // the right part keeps its offsets
  m.read(4000, 200, out);  // across a boundary: bytes, and the right ones
  EXPECT_EQ(out.bytes, contents(m, 4000, 200));
  Bytes expected = expected_pattern(3, 4000, 96);
  const Bytes b = expected_pattern(9, 0, 104);
  expected.insert(expected.end(), b.begin(), b.end());
  EXPECT_EQ(out.bytes, expected);

  m.write(4096, token_payload(1024, pattern_token(3, 4096)));
  EXPECT_EQ(m.extent_count(), 1u);
  m.read(0, 1 << 20, out);
  EXPECT_EQ(out.token, pattern_token(3, 0));
}

TEST(TokenMemory, OneCorruptedPacketMakesSameContentFalse) {
  const uint64_t length = 4 * kMiB;
  TokenMemory src(0, 8 * kMiB);
  src.fill(0, length, 21);
  TokenMemory dst(0, 8 * kMiB);
  copy_packets(src, 0, dst, 4 * kMiB, length, 4096, in_order(length, 4096));
  ASSERT_TRUE(same_content(src, 0, dst, 4 * kMiB, length));

  const uint64_t at = 1000 * 4096;
  dst.write(4 * kMiB + at, token_payload(4096, pattern_token(22, at)));  // another seed
  EXPECT_FALSE(same_content(src, 0, dst, 4 * kMiB, length));
  dst.write(4 * kMiB + at, token_payload(4096, pattern_token(21, at + 4096)));  // another offset
  EXPECT_FALSE(same_content(src, 0, dst, 4 * kMiB, length));
  dst.write(4 * kMiB + at + 17, token_payload(1, pattern_token(21, at + 18)));  // one byte
  dst.write(4 * kMiB + at, token_payload(4096, pattern_token(21, at)));         // repaired
  EXPECT_TRUE(same_content(src, 0, dst, 4 * kMiB, length));
  EXPECT_EQ(dst.extent_count(), 2u);
  // The ranges outside the corruption still compare equal.
  dst.write(4 * kMiB + at, token_payload(4096, pattern_token(21, at + 1)));
  EXPECT_TRUE(same_content(src, 0, dst, 4 * kMiB, at));
  EXPECT_TRUE(same_content(src, at + 4096, dst, 4 * kMiB + at + 4096, length - at - 4096));
}

TEST(TokenMemory, MixedBytesAndPatternsReadAsTheRightBytes) {
  TokenMemory m(0x1000, 64 * 1024);
  m.fill(0x1000, 8192, 4, 0);
  RandomStream rng(3, "bytes");
  const Bytes data = random_bytes(rng, 300);
  m.write(0x1000 + 1000, bytes_payload(data));
  EXPECT_EQ(m.extent_count(), 4u);  // pattern, bytes, pattern, zeros

  world::Payload out;
  m.read(0x1000 + 1000, 300, out);  // only bytes: bytes
  EXPECT_EQ(out.token, 0u);
  EXPECT_EQ(out.bytes, data);
  m.read(0x1000 + 1100, 50, out);
  EXPECT_EQ(out.bytes, Bytes(data.begin() + 100, data.begin() + 150));

  m.read(0x1000 + 900, 500, out);  // pattern, bytes, pattern
  Bytes expected = expected_pattern(4, 900, 100);
  expected.insert(expected.end(), data.begin(), data.end());
  const Bytes after = expected_pattern(4, 1300, 100);
  expected.insert(expected.end(), after.begin(), after.end());
  EXPECT_EQ(out.bytes, expected);
  EXPECT_EQ(materialized(out), contents(m, 0x1000 + 900, 500));

  // Bytes written next to bytes merge; bytes written over bytes overwrite in place.
  const Bytes more = random_bytes(rng, 200);
  m.write(0x1000 + 1300, bytes_payload(more));
  EXPECT_EQ(m.extent_count(), 4u);
  m.write(0x1000 + 1010, bytes_payload(more));
  EXPECT_EQ(m.extent_count(), 4u);
  m.read(0x1000 + 1000, 500, out);
  Bytes merged(data.begin(), data.begin() + 10);
  merged.insert(merged.end(), more.begin(), more.end());
  merged.insert(merged.end(), data.begin() + 210, data.end());
  merged.insert(merged.end(), more.begin(), more.end());
  EXPECT_EQ(out.bytes, merged);

  // A pattern written over all of it leaves one pattern run again.
  m.fill(0x1000, 8192, 4, 0);
  EXPECT_EQ(m.extent_count(), 2u);
}

TEST(TokenMemory, ByteMemoryAndTokenMemoryCompareByContent) {
  const uint64_t length = 256 * 1024;
  TokenMemory tokens(0, 1 * kMiB);
  tokens.fill(4096, length, 8, 77);
  ByteMemory bytes(0x40000000, 512 * 1024);
  copy_packets(tokens, 4096, bytes, 0x40000000 + 100, length, 1500, in_order(length, 1500));
  EXPECT_TRUE(same_content(tokens, 4096, bytes, 0x40000000 + 100, length));
  EXPECT_TRUE(same_content(bytes, 0x40000000 + 100, tokens, 4096, length));
  EXPECT_FALSE(same_content(bytes, 0x40000000 + 101, tokens, 4096, length));  // shifted by one

  bytes.bytes()[100 + 12345] ^= std::byte{1};
  EXPECT_FALSE(same_content(tokens, 4096, bytes, 0x40000000 + 100, length));
  EXPECT_TRUE(same_content(tokens, 4096, bytes, 0x40000000 + 100, 12345));

  // And back: bytes copied into token memory arrive as bytes and compare equal.
  TokenMemory back(0, 1 * kMiB);
  copy_packets(bytes, 0x40000000 + 100, back, 0, length, 4096, in_order(length, 4096));
  EXPECT_TRUE(same_content(back, 0, bytes, 0x40000000 + 100, length));
  EXPECT_FALSE(same_content(back, 0, tokens, 4096, length));
}

TEST(TokenMemory, ZeroLengthOperationsDoNothingAndNeverThrow) {
  TokenMemory m(0x1000, 4096);
  m.fill(0x1100, 100, 2);
  const size_t extents = m.extent_count();
  world::Payload out{.length = 9, .token = 9, .bytes = Bytes(9)};
  m.read(0x999999, 0, out);  // outside, but touches nothing
  EXPECT_EQ(out.length, 0u);
  EXPECT_EQ(out.token, 0u);
  EXPECT_TRUE(out.bytes.empty());
  m.write(0x1100 + 50, token_payload(0, pattern_token(5, 0)));
  m.write(0, world::Payload{});
  m.fill(0x1100 + 10, 0, 7);
  m.copy_out(0x1100, std::span<std::byte>());
  EXPECT_EQ(m.extent_count(), extents);
  EXPECT_EQ(contents(m, 0x1100, 100), expected_pattern(2, 0, 100));
  EXPECT_TRUE(same_content(m, 0, m, 0x1100, 0));
  EXPECT_EQ(m.content_at(0x1100, 0).length, 0u);

  ByteMemory b(0, 16);
  b.write(100, world::Payload{});
  b.read(100, 0, out);
  EXPECT_EQ(out.length, 0u);
  EXPECT_EQ(contents(b, 0, 16), Bytes(16, std::byte{0}));
}

TEST(TokenMemory, HugeSparseMemoryCostsNothing) {
  const uint64_t size = uint64_t{1} << 40;
  TokenMemory m(0x10000, size);
  EXPECT_EQ(m.extent_count(), 1u);
  for (uint64_t va : {uint64_t{0x10000}, uint64_t{1} << 39, 0x10000 + size - 4096}) {
    m.write(va, token_payload(4096, pattern_token(1, va % 4096)));
  }
  EXPECT_EQ(m.extent_count(), 5u);  // three packets, two stretches of zeros between them
  world::Payload out;
  m.read(0x10000 + size - 4096, 4096, out);
  EXPECT_EQ(out.token, pattern_token(1, 0));
  m.read(uint64_t{1} << 38, 1u << 30, out);  // a GiB of never-written memory: token 0
  EXPECT_EQ(out.token, 0u);
  EXPECT_TRUE(out.bytes.empty());
  // Comparing 512 GiB of zeros against itself at another address is one descriptor comparison.
  const uint64_t gap = (uint64_t{1} << 39) - 0x11000;  // the zeros after the first packet
  EXPECT_TRUE(same_content(m, 0x11000, m, (uint64_t{1} << 39) + 4096, gap));
  EXPECT_FALSE(same_content(m, 0x11000, m, (uint64_t{1} << 39) + 4096, gap + 4096));
  m.fill(0x10000, size, 6);
  EXPECT_EQ(m.extent_count(), 1u);
  EXPECT_TRUE(same_content(m, 0x10000, m, 0x10000, size));
  EXPECT_EQ(m.content_at(0x10000 + 5, size - 5).pattern_offset, 5u);
}

TEST(TokenMemory, RejectsBadRangesSeedsAndPayloads) {
  TokenMemory m(0x1000, 4096);
  world::Payload out;
  EXPECT_EQ(error_of([&] { m.read(0x1F00, 512, out); }),
            "host memory access of 512 bytes at [0x1f00, 0x2100) is outside the memory [0x1000, "
            "0x2000)");
  EXPECT_EQ(error_of([&] { m.write(0x2000, token_payload(1, 0)); }),
            "host memory access of 1 bytes at [0x2000, 0x2001) is outside the memory [0x1000, "
            "0x2000)");
  EXPECT_EQ(error_of([&] { m.fill(0x1000, 10, 1u << 24); }),
            "pattern seed 16777216 is too large: seeds must be below 2^24 (16777216)");
  EXPECT_EQ(error_of([&] { m.fill(0x1000, 10, 1, kPatternOffsetLimit - 5); }),
            "fill of 10 bytes from pattern offset 0xfffffffffb runs past 2^40 (0x10000000000); "
            "tokens could not name its end");
  EXPECT_EQ(error_of([&] {
              m.write(0x1000, world::Payload{.length = 2, .token = 0, .bytes = Bytes(1)});
            }),
            "payload of length 2 carries 1 bytes; a payload with bytes must carry exactly its "
            "length");
  EXPECT_EQ(error_of([&] { same_content(m, 0x1000, m, 0x1000, 5000); }),
            "host memory access of 5000 bytes at [0x1000, 0x2388) is outside the memory [0x1000, "
            "0x2000)");
  EXPECT_EQ(m.extent_count(), 1u);  // nothing changed
}

// ---- property ------------------------------------------------------------------------------

// Adjacent runs as content_at reports them across the whole memory.
std::vector<ContentRun> all_runs(const HostMemory& m) {
  std::vector<ContentRun> runs;
  for (uint64_t at = 0; at < m.size();) {
    runs.push_back(m.content_at(m.base() + at, m.size() - at));
    at += runs.back().length;
  }
  return runs;
}

TEST(TokenMemoryProperty, RandomOperationsMatchAByteMemoryReference) {
  constexpr uint64_t kBase = 0x7000;
  constexpr uint64_t kSize = 4096;
  for (uint64_t seed : bifrost::testing::property_seeds()) {
    SCOPED_TRACE(fmt::format("seed {}", seed));
    RandomStream rng(seed, "host-memory-property");
    TokenMemory tokens(kBase, kSize);
    ByteMemory reference(kBase, kSize);
    // A random range inside the memory; short ranges are common, long ones possible.
    auto range = [&](uint64_t max_length) {
      const uint64_t length = rng.uniform_int(0, std::min(max_length, kSize));
      return std::pair{kBase + rng.uniform_int(0, kSize - length), length};
    };
    uint64_t token_reads = 0;
    for (int op = 0; op < 300; ++op) {
      const uint64_t kind = rng.uniform_int(0, 3);
      const auto [va, length] = range(kind == 0 ? kSize : 700);
      const auto n = static_cast<uint32_t>(length);
      if (kind == 0) {  // fill, with offsets that continue the address half of the time
        const auto pattern_seed = static_cast<uint32_t>(rng.uniform_int(0, 3));
        const uint64_t offset = rng.bernoulli(0.5) ? va - kBase : rng.uniform_int(0, 10000);
        tokens.fill(va, length, pattern_seed, offset);
        reference.write(va, token_payload(n, pattern_token(pattern_seed, offset)));
      } else if (kind == 1) {  // a token payload
        const auto pattern_seed = static_cast<uint32_t>(rng.uniform_int(0, 3));
        const uint64_t offset = rng.bernoulli(0.5) ? va - kBase : rng.uniform_int(0, 10000);
        const auto p = token_payload(n, pattern_token(pattern_seed, offset));
        tokens.write(va, p);
        reference.write(va, p);
      } else if (kind == 2) {  // real bytes
        const auto p = bytes_payload(random_bytes(rng, n));
        tokens.write(va, p);
        reference.write(va, p);
      } else {  // a DMA copy inside the memory, through a payload as the NIC does it
        const uint64_t to = kBase + rng.uniform_int(0, kSize - length);
        world::Payload p;
        tokens.read(va, n, p);
        token_reads += p.bytes.empty() && n > 0;
        ASSERT_EQ(materialized(p), contents(reference, va, n));
        tokens.write(to, p);
        reference.read(va, n, p);
        reference.write(to, p);
      }
      // Random reads agree, and content comparisons agree with comparing the reference bytes.
      const auto [rva, rlength] = range(1000);
      world::Payload p;
      tokens.read(rva, static_cast<uint32_t>(rlength), p);
      ASSERT_EQ(materialized(p), contents(reference, rva, rlength)) << "op " << op;
      ASSERT_TRUE(same_content(tokens, rva, reference, rva, rlength)) << "op " << op;
      const auto [xva, xlength] = range(1000);
      const uint64_t yva = kBase + rng.uniform_int(0, kSize - xlength);
      ASSERT_EQ(same_content(tokens, xva, tokens, yva, xlength),
                contents(reference, xva, xlength) == contents(reference, yva, xlength))
          << "op " << op;
    }
    EXPECT_EQ(contents(tokens, kBase, kSize), contents(reference, kBase, kSize));
    EXPECT_GT(token_reads, 0u);  // the copies did move descriptors, not only bytes
    // Canonical form: no two adjacent pattern runs continue each other, and (in memory this
    // small) no two byte runs sit side by side; all of it is what extent_count counts.
    const auto runs = all_runs(tokens);
    EXPECT_EQ(runs.size(), tokens.extent_count());
    for (size_t i = 1; i < runs.size(); ++i) {
      const ContentRun& a = runs[i - 1];
      const ContentRun& b = runs[i];
      EXPECT_FALSE(!a.is_pattern && !b.is_pattern) << "run " << i;
      EXPECT_FALSE(a.is_pattern && b.is_pattern && a.seed == b.seed &&
                   (a.seed == 0 || a.pattern_offset + a.length == b.pattern_offset))
          << "run " << i;
    }
  }
}

}  // namespace
}  // namespace bifrost::rnic
