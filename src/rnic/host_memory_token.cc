// TokenMemory: host memory as a sorted map of content extents.
//
// Invariants: the extents tile [base, base + size) without gaps; every extent is non-empty; a
// byte extent holds exactly `length` bytes; a seed-0 pattern extent has offset == its address
// (zeros look the same at every offset, and this makes adjacent zero runs contiguous, so they
// merge like any other continuous run).
#include <algorithm>
#include <cstring>
#include <iterator>
#include <utility>

#include "bifrost/core/error.h"
#include "bifrost/rnic/host_memory.h"

namespace bifrost::rnic {

TokenMemory::TokenMemory(uint64_t base, uint64_t size) : HostMemory(base, size) {
  if (size > 0)
    extents_.emplace(base, Extent{.length = size, .seed = 0, .offset = base, .bytes = {}});
}

TokenMemory::Map::const_iterator TokenMemory::find(uint64_t va) const {
  return std::prev(extents_.upper_bound(va));
}

TokenMemory::Map::iterator TokenMemory::find(uint64_t va) {
  return std::prev(extents_.upper_bound(va));
}

namespace {

// Whether b, placed right after a, continues it (so that the two may be one extent).
template <typename E>
bool continues(const E& a, const E& b, uint64_t max_merged_bytes) {
  if (a.is_bytes() != b.is_bytes()) return false;
  if (a.is_bytes()) return a.length + b.length <= max_merged_bytes;
  return a.seed == b.seed && a.offset + a.length == b.offset;
}

// Keeps the first `length` bytes of e.
template <typename E>
void truncate(E& e, uint64_t length) {
  e.length = length;
  if (e.is_bytes()) e.bytes.resize(length);
}

}  // namespace

TokenMemory::Map::iterator TokenMemory::split(Map::iterator it, uint64_t pos) {
  Extent& left = it->second;
  const uint64_t cut = pos - it->first;
  Extent right{
      .length = left.length - cut, .seed = left.seed, .offset = left.offset + cut, .bytes = {}};
  if (left.is_bytes()) {
    right.bytes.assign(left.bytes.begin() + static_cast<ptrdiff_t>(cut), left.bytes.end());
  }
  truncate(left, cut);
  return extents_.emplace_hint(std::next(it), pos, std::move(right));
}

TokenMemory::Map::iterator TokenMemory::trim_front(Map::iterator it, uint64_t pos) {
  const auto hint = std::next(it);
  auto node = extents_.extract(it);
  Extent& e = node.mapped();
  const uint64_t cut = pos - node.key();
  e.length -= cut;
  e.offset += cut;
  if (e.is_bytes()) e.bytes.erase(e.bytes.begin(), e.bytes.begin() + static_cast<ptrdiff_t>(cut));
  node.key() = pos;
  return extents_.insert(hint, std::move(node));
}

void TokenMemory::store(Map::iterator it, uint64_t va, Extent extent) {
  const uint64_t end = va + extent.length;
  if (!extent.is_bytes() && extent.seed == 0) extent.offset = va;
  // Cut [va, end) out of the map. The extent holding va keeps its part before va (and, when the
  // write lies inside it, is split at end first); extents inside the range go, keeping one node
  // for reuse; the extent holding end loses its part before end.
  if (it->first < va) {
    if (it->first + it->second.length > end) split(it, end);
    truncate(it->second, va - it->first);
    ++it;
  }
  Map::node_type spare;
  while (it != extents_.end() && it->first + it->second.length <= end) {
    const auto next = std::next(it);
    if (spare.empty()) {
      spare = extents_.extract(it);
    } else {
      extents_.erase(it);
    }
    it = next;
  }
  if (it != extents_.end() && it->first < end) it = trim_front(it, end);
  // Now `it` starts at end (or is end()). Place the extent: appended to the extent before it or
  // prepended to the one after it when it continues them, else in a reused or new node.
  const bool has_prev = it != extents_.begin();
  Map::iterator placed;
  if (has_prev && continues(std::prev(it)->second, extent, kMaxMergedBytes)) {
    placed = std::prev(it);
    Extent& p = placed->second;
    if (p.is_bytes()) p.bytes.insert(p.bytes.end(), extent.bytes.begin(), extent.bytes.end());
    p.length += extent.length;
  } else if (it != extents_.end() && continues(extent, it->second, kMaxMergedBytes)) {
    const auto hint = std::next(it);
    auto node = extents_.extract(it);
    Extent& n = node.mapped();
    if (n.is_bytes()) n.bytes.insert(n.bytes.begin(), extent.bytes.begin(), extent.bytes.end());
    n.length += extent.length;
    n.offset = extent.offset;
    node.key() = va;
    placed = extents_.insert(hint, std::move(node));
  } else if (!spare.empty()) {
    spare.key() = va;
    spare.mapped() = std::move(extent);
    placed = extents_.insert(it, std::move(spare));
  } else {
    placed = extents_.emplace_hint(it, va, std::move(extent));
  }
  // An extent appended to its predecessor may now also meet its successor.
  if (const auto next = std::next(placed);
      next != extents_.end() && continues(placed->second, next->second, kMaxMergedBytes)) {
    Extent& p = placed->second;
    if (p.is_bytes())
      p.bytes.insert(p.bytes.end(), next->second.bytes.begin(), next->second.bytes.end());
    p.length += next->second.length;
    extents_.erase(next);
  }
}

void TokenMemory::write(uint64_t va, const world::Payload& in) {
  check_payload(in);
  if (in.length == 0) return;
  check_range(va, in.length);
  const auto it = find(va);
  Extent& here = it->second;
  const uint64_t within = va - it->first;
  const bool inside = in.length <= here.length - within;
  if (!in.bytes.empty()) {
    // Bytes over bytes: overwrite in place instead of splitting.
    if (here.is_bytes() && inside) {
      std::memcpy(here.bytes.data() + within, in.bytes.data(), in.length);
      return;
    }
    store(it, va, Extent{.length = in.length, .bytes = in.bytes});
    return;
  }
  const uint32_t seed = token_seed(in.token);
  const uint64_t offset = token_offset(in.token);
  // Content already there (a retransmitted packet, a zero write over zeros): nothing changes.
  if (!here.is_bytes() && inside && here.seed == seed &&
      (seed == 0 || here.offset + within == offset)) {
    return;
  }
  store(it, va, Extent{.length = in.length, .seed = seed, .offset = offset, .bytes = {}});
}

void TokenMemory::fill(uint64_t va, uint64_t length, uint32_t seed, uint64_t pattern_offset) {
  if (seed >= kPatternSeedLimit) {
    throw Error("pattern seed {} is too large: seeds must be below 2^24 ({})", seed,
                kPatternSeedLimit);
  }
  if (seed != 0 &&
      (pattern_offset > kPatternOffsetLimit || length > kPatternOffsetLimit - pattern_offset)) {
    throw Error(
        "fill of {} bytes from pattern offset {:#x} runs past 2^40 ({:#x}); tokens could "
        "not name its end",
        length, pattern_offset, kPatternOffsetLimit);
  }
  check_range(va, length);
  if (length == 0) return;
  store(find(va), va,
        Extent{.length = length, .seed = seed, .offset = pattern_offset, .bytes = {}});
}

void TokenMemory::read(uint64_t va, uint32_t length, world::Payload& out) const {
  if (!start_read(va, length, out)) return;
  // Continuous runs are normally one extent (they merge on write); the walk covers the rest.
  auto it = find(va);
  const Extent& first = it->second;
  const uint64_t start_offset = first.offset + (va - it->first);
  bool continuous = !first.is_bytes();
  uint64_t covered = it->first + first.length - va;  // bytes of the range seen so far
  for (uint64_t expected = first.offset + first.length; continuous && covered < length;) {
    const Extent& next = (++it)->second;
    continuous =
        !next.is_bytes() && next.seed == first.seed && (first.seed == 0 || next.offset == expected);
    expected = next.offset + next.length;
    covered += next.length;
  }
  if (continuous && (first.seed == 0 || start_offset < kPatternOffsetLimit)) {
    out.bytes.clear();
    out.token = first.seed == 0 ? 0 : pattern_token(first.seed, start_offset);
    return;
  }
  out.bytes.resize(length);
  copy_out(va, out.bytes);
}

void TokenMemory::copy_out(uint64_t va, std::span<std::byte> out) const {
  check_range(va, out.size());
  auto it = out.empty() ? extents_.end() : find(va);
  for (size_t done = 0; done < out.size(); ++it) {
    const Extent& e = it->second;
    const uint64_t within = va + done - it->first;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(e.length - within, out.size() - done));
    if (e.is_bytes()) {
      std::memcpy(out.data() + done, e.bytes.data() + within, n);
    } else {
      fill_pattern(e.seed, e.offset + within, out.subspan(done, n));
    }
    done += n;
  }
}

ContentRun TokenMemory::content_at(uint64_t va, uint64_t max_length) const {
  check_range(va, max_length);
  if (max_length == 0) return ContentRun{};
  const auto it = find(va);
  const Extent& e = it->second;
  const uint64_t within = va - it->first;
  const uint64_t n = std::min(e.length - within, max_length);
  if (e.is_bytes()) {
    return ContentRun{
        .length = n, .is_pattern = false, .bytes = std::span(e.bytes).subspan(within, n)};
  }
  return ContentRun{.length = n, .seed = e.seed, .pattern_offset = e.offset + within, .bytes = {}};
}

}  // namespace bifrost::rnic
