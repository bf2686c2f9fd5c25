#include "bifrost/wire/icrc.h"

#include <algorithm>
#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "bifrost/wire/byte_order.h"

namespace bifrost::wire {
namespace {

constexpr uint32_t kPolynomial = 0xEDB88320;  // IEEE 802.3, bit-reflected

// Slicing-by-16 tables: table[k][b] is the CRC contribution of byte b followed by k zero bytes,
// so sixteen input bytes cost sixteen independent look-ups and no per-bit work. (Measured on
// 4 KiB payloads: about 1.45x the throughput of slicing-by-8, for 16 KiB of tables.)
using CrcTables = std::array<std::array<uint32_t, 256>, 16>;

constexpr CrcTables make_tables() {
  CrcTables t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c = b;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
    t[0][b] = c;
  }
  for (std::size_t k = 1; k < t.size(); ++k) {
    for (uint32_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFF];
  }
  return t;
}

constexpr CrcTables kTables = make_tables();

// Runs the CRC register over `data` without the initial and final complement.
uint32_t crc_update(uint32_t crc, const std::byte* p, std::size_t n) {
  using detail::load_le32;
  const auto& t = kTables;
  while (n >= 16) {
    const uint32_t a = crc ^ load_le32(p);
    const uint32_t b = load_le32(p + 4);
    const uint32_t c = load_le32(p + 8);
    const uint32_t d = load_le32(p + 12);
    crc = t[15][a & 0xFF] ^ t[14][(a >> 8) & 0xFF] ^ t[13][(a >> 16) & 0xFF] ^ t[12][a >> 24] ^
          t[11][b & 0xFF] ^ t[10][(b >> 8) & 0xFF] ^ t[9][(b >> 16) & 0xFF] ^ t[8][b >> 24] ^
          t[7][c & 0xFF] ^ t[6][(c >> 8) & 0xFF] ^ t[5][(c >> 16) & 0xFF] ^ t[4][c >> 24] ^
          t[3][d & 0xFF] ^ t[2][(d >> 8) & 0xFF] ^ t[1][(d >> 16) & 0xFF] ^ t[0][d >> 24];
    p += 16;
    n -= 16;
  }
  // Short tails (headers, 4-byte aligned payloads) still go a word at a time.
  if (n >= 8) {
    const uint32_t a = crc ^ load_le32(p);
    const uint32_t b = load_le32(p + 4);
    crc = t[7][a & 0xFF] ^ t[6][(a >> 8) & 0xFF] ^ t[5][(a >> 16) & 0xFF] ^ t[4][a >> 24] ^
          t[3][b & 0xFF] ^ t[2][(b >> 8) & 0xFF] ^ t[1][(b >> 16) & 0xFF] ^ t[0][b >> 24];
    p += 8;
    n -= 8;
  }
  if (n >= 4) {
    const uint32_t a = crc ^ load_le32(p);
    crc = t[3][a & 0xFF] ^ t[2][(a >> 8) & 0xFF] ^ t[1][(a >> 16) & 0xFF] ^ t[0][a >> 24];
    p += 4;
    n -= 4;
  }
  while (n-- > 0) crc = (crc >> 8) ^ kTables[0][(crc ^ static_cast<uint8_t>(*p++)) & 0xFF];
  return crc;
}

#if defined(__x86_64__)
// Carry-less multiplication folding (Intel, "Fast CRC Computation for Generic Polynomials
// Using PCLMULQDQ", bit-reflected form; the constants are x^(k) mod P for the IEEE polynomial,
// the ones Linux's crc32-pclmul uses). Four 128-bit lanes fold 64 bytes per step, then one lane
// 16 bytes per step; the folded 16 bytes are congruent to everything consumed, so the table
// code finishes them (and the tail) without a Barrett reduction. About 5x the table code on
// 4 KiB payloads; the ICRC of every datagram runs through here in the real world.
#define BIFROST_CLMUL __attribute__((target("pclmul,sse4.1")))

BIFROST_CLMUL inline __m128i load128(const std::byte* q) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
}

// x folded forward over the distance k encodes, plus the block found there.
BIFROST_CLMUL inline __m128i fold128(__m128i x, __m128i k, __m128i next) {
  const __m128i lo = _mm_clmulepi64_si128(x, k, 0x00);
  const __m128i hi = _mm_clmulepi64_si128(x, k, 0x11);
  return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

BIFROST_CLMUL uint32_t crc_update_clmul(uint32_t crc, const std::byte* p, std::size_t n) {
  const __m128i k1k2 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);  // fold by 512 bits
  const __m128i k3k4 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);  // fold by 128 bits
  __m128i x0 = _mm_xor_si128(load128(p), _mm_cvtsi32_si128(static_cast<int>(crc)));
  __m128i x1 = load128(p + 16);
  __m128i x2 = load128(p + 32);
  __m128i x3 = load128(p + 48);
  p += 64;
  n -= 64;
  while (n >= 64) {
    x0 = fold128(x0, k1k2, load128(p));
    x1 = fold128(x1, k1k2, load128(p + 16));
    x2 = fold128(x2, k1k2, load128(p + 32));
    x3 = fold128(x3, k1k2, load128(p + 48));
    p += 64;
    n -= 64;
  }
  x0 = fold128(x0, k3k4, x1);
  x0 = fold128(x0, k3k4, x2);
  x0 = fold128(x0, k3k4, x3);
  while (n >= 16) {
    x0 = fold128(x0, k3k4, load128(p));
    p += 16;
    n -= 16;
  }
  alignas(16) std::byte folded[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(folded), x0);
  return crc_update(crc_update(0, folded, 16), p, n);
}

bool has_clmul() {
  static const bool yes = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  return yes;
}
#endif

// The fastest CRC register update this CPU has.
uint32_t crc_update_fast(uint32_t crc, const std::byte* p, std::size_t n) {
#if defined(__x86_64__)
  if (n >= 64 && has_clmul()) return crc_update_clmul(crc, p, n);
#endif
  return crc_update(crc, p, n);
}

// The register after the 8 bytes of 0xFF that replace the LRH, fixed for every packet.
constexpr uint32_t lrh_state() {
  uint32_t crc = 0xFFFFFFFF;
  for (int i = 0; i < 8; ++i) crc = (crc >> 8) ^ kTables[0][(crc ^ 0xFF) & 0xFF];
  return crc;
}

constexpr uint32_t kAfterLrh = lrh_state();
constexpr std::byte kOnes{0xFF};

// CRC over the masked outer headers and the transport. The masked copies share one buffer that
// is topped up with the first transport bytes (BTH included) to a multiple of 16 bytes, so the
// per-byte loop only runs on the packet's tail. `mask_ip` sets the IP header's variant fields.
template <std::size_t kIpSize, typename MaskIp>
uint32_t icrc_over(std::span<const std::byte, kIpSize> ip_header,
                   std::span<const std::byte, 8> udp_header, std::span<const std::byte> transport,
                   MaskIp mask_ip) {
  constexpr std::size_t kOuter = kIpSize + 8;
  constexpr std::size_t kBthByte4 = kOuter + 4;  // FECN, BECN, reserved
  constexpr std::size_t kPrefix = (kOuter + 12 + 15) / 16 * 16;
  std::array<std::byte, kPrefix> buf;
  std::memcpy(buf.data(), ip_header.data(), kIpSize);
  mask_ip(buf.data());
  std::memcpy(buf.data() + kIpSize, udp_header.data(), 8);
  buf[kIpSize + 6] = buf[kIpSize + 7] = kOnes;  // UDP checksum
  const std::size_t taken = std::min(transport.size(), kPrefix - kOuter);
  if (taken != 0) std::memcpy(buf.data() + kOuter, transport.data(), taken);
  if (kOuter + taken > kBthByte4) buf[kBthByte4] = kOnes;
  const uint32_t crc = crc_update(kAfterLrh, buf.data(), kOuter + taken);
  return ~crc_update_fast(crc, transport.data() + taken, transport.size() - taken);
}

}  // namespace

uint32_t crc32_ieee(std::span<const std::byte> data, uint32_t previous) {
  return ~crc_update_fast(~previous, data.data(), data.size());
}

uint32_t icrc_ipv4(std::span<const std::byte, 20> ip_header,
                   std::span<const std::byte, 8> udp_header, std::span<const std::byte> transport) {
  return icrc_over(ip_header, udp_header, transport, [](std::byte* ip) {
    ip[1] = kOnes;            // TOS (DSCP and ECN)
    ip[8] = kOnes;            // TTL
    ip[10] = ip[11] = kOnes;  // header checksum
  });
}

uint32_t icrc_ipv6(std::span<const std::byte, 40> ip_header,
                   std::span<const std::byte, 8> udp_header, std::span<const std::byte> transport) {
  return icrc_over(ip_header, udp_header, transport, [](std::byte* ip) {
    ip[0] |= std::byte{0x0F};       // traffic class, high nibble (the version nibble stays)
    ip[1] = ip[2] = ip[3] = kOnes;  // traffic class low nibble and the flow label
    ip[7] = kOnes;                  // hop limit
  });
}

void store_icrc(uint32_t icrc, std::span<std::byte, kIcrcSize> out) {
  detail::store_le32(out.data(), icrc);
}

uint32_t load_icrc(std::span<const std::byte, kIcrcSize> in) {
  return detail::load_le32(in.data());
}

}  // namespace bifrost::wire
