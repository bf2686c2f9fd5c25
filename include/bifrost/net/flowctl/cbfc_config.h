#pragma once
// Configuration of credit-based flow control as InfiniBand does it, shared by its two halves
// (docs/net.md, "CBFC"). Credits count 64-byte blocks. The receiver advertises a flow-control
// credit limit FCCL = blocks received + free blocks; the sender keeps FCTBS, the total blocks
// sent, and may send n blocks while FCTBS + n <= FCCL. InfiniBand carries both modulo 2^12
// and lets the sender send only while (FCCL - FCTBS - n) mod 4096 <= 2048, so at most 2048
// blocks (128 KiB) can be outstanding: beyond that window / round trip the link idles.
#include <cstdint>

#include "bifrost/core/bytes.h"
#include "bifrost/core/time.h"

namespace bifrost::net {

inline constexpr uint32_t kCreditBlockBytes = 64;
inline constexpr uint32_t kIbCreditFieldBits = 12;

constexpr uint64_t credit_blocks(uint64_t frame_bytes) {
  return (frame_bytes + kCreditBlockBytes - 1) / kCreditBlockBytes;
}

struct CbfcConfig {
  uint8_t priorities = 1u << 3;  // bit p: credits control priority p (lossless)
  Bytes buffer = Bytes::MiB(1);  // receive buffer per priority; credits never exceed it
  Time update_period = Time::us(1);
  // Bits of the FCCL / FCTBS fields: 12 as in InfiniBand, or 0 for the ideal variant (no wrap,
  // credits limited only by the buffer).
  uint32_t field_bits = kIbCreditFieldBits;
};

}  // namespace bifrost::net
