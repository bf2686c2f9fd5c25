#include "bifrost/transport/wire/soft_ack.h"

#include <algorithm>
#include <limits>

#include "bifrost/wire/byte_order.h"

namespace bifrost::transport {

using namespace wire::detail;
using wire::WireError;

namespace {

// The base every SEND entry is compressed against. A flag, not a sentinel: every 64-bit value,
// including the maximum, is a valid global number.
uint64_t least_send_global(const SoftAck& ack) {
  bool any = false;
  uint64_t least = 0;
  for (size_t i = 0; i < ack.count; ++i) {
    if (!ack.entries[i].is_send) continue;
    least = any ? std::min(least, ack.entries[i].global) : ack.entries[i].global;
    any = true;
  }
  return least;
}

}  // namespace

wire::Result<std::size_t> encode_soft_ack(const SoftAck& ack, std::span<std::byte> out) {
  if (ack.count == 0 || ack.count > kSoftAckMaxEntries ||
      (ack.timing_entry != kNoTimingEntry && ack.timing_entry >= ack.count) ||
      (ack.write_cumulative >> 31) != 0) {
    return wire::fail<std::size_t>(WireError::kFieldOutOfRange);
  }
  const std::size_t size = kSoftAckHeaderSize + 4 * std::size_t{ack.count};
  if (out.size() < size) return wire::fail<std::size_t>(WireError::kBufferTooSmall);
  const uint64_t base = least_send_global(ack);
  uint32_t types = 0;
  std::byte* entry = out.data() + kSoftAckHeaderSize;
  for (size_t i = 0; i < ack.count; ++i, entry += 4) {
    const AckedWqe& e = ack.entries[i];
    if (e.is_send) {
      if (e.global - base > std::numeric_limits<uint32_t>::max()) {
        return wire::fail<std::size_t>(WireError::kFieldOutOfRange);
      }
      types |= 1u << i;
      store_be32(entry, static_cast<uint32_t>(e.global - base));
    } else {
      if (e.write_imm >> 31) return wire::fail<std::size_t>(WireError::kFieldOutOfRange);
      store_be32(entry, e.write_imm);
    }
  }
  std::byte* p = out.data();
  store_be32(p, ack.connection);
  store_u8(p + 4, ack.count);
  store_u8(p + 5, ack.timing_entry);
  store_be16(p + 6, ack.ecn_echo ? kSoftAckEcnEcho : uint16_t{0});
  store_be32(p + 8, types);
  store_be32(p + 12, ack.ack_delay_ns);
  store_be64(p + 16, base);
  store_be32(p + 24, ack.send_cumulative);
  store_be32(p + 28, ack.write_cumulative);
  return {size};
}

wire::Result<SoftAck> decode_soft_ack(std::span<const std::byte> in) {
  if (in.size() < kSoftAckHeaderSize) return wire::fail<SoftAck>(WireError::kTruncated);
  const std::byte* p = in.data();
  SoftAck ack;
  ack.connection = load_be32(p);
  ack.count = u8(p + 4);
  ack.timing_entry = u8(p + 5);
  const uint32_t types = load_be32(p + 8);
  ack.ack_delay_ns = load_be32(p + 12);
  const uint64_t base = load_be64(p + 16);
  ack.send_cumulative = load_be32(p + 24);
  ack.write_cumulative = load_be32(p + 28);
  const uint16_t flags = load_be16(p + 6);
  ack.ecn_echo = (flags & kSoftAckEcnEcho) != 0;
  if (ack.count == 0 || ack.count > kSoftAckMaxEntries || (flags & ~kSoftAckEcnEcho) != 0 ||
      (ack.write_cumulative >> 31) != 0 ||
      (ack.timing_entry != kNoTimingEntry && ack.timing_entry >= ack.count) ||
      (ack.count < 32 && (types >> ack.count) != 0)) {
    return wire::fail<SoftAck>(WireError::kFieldOutOfRange);
  }
  const std::size_t size = kSoftAckHeaderSize + 4 * std::size_t{ack.count};
  if (in.size() < size) return wire::fail<SoftAck>(WireError::kTruncated);
  if (in.size() > size) return wire::fail<SoftAck>(WireError::kPayloadNotAllowed);
  const std::byte* entry = p + kSoftAckHeaderSize;
  for (size_t i = 0; i < ack.count; ++i, entry += 4) {
    const uint32_t value = load_be32(entry);
    AckedWqe& e = ack.entries[i];
    e.is_send = ((types >> i) & 1) != 0;
    if (e.is_send) {
      if (value > std::numeric_limits<uint64_t>::max() - base) {
        return wire::fail<SoftAck>(WireError::kFieldOutOfRange);  // would wrap past 2^64
      }
      e.global = base + value;
    } else {
      if (value >> 31) return wire::fail<SoftAck>(WireError::kFieldOutOfRange);
      e.write_imm = value;
    }
  }
  return {ack};
}

}  // namespace bifrost::transport
