#pragma once
// Big-endian (network order) and little-endian loads and stores on raw bytes, shared by every
// codec of bytes that cross the network. Callers check bounds first; these compile to single
// moves plus a byte swap.
#include <cstddef>
#include <cstdint>

namespace bifrost::wire::detail {

inline uint8_t u8(const std::byte* p) {
  return static_cast<uint8_t>(*p);
}

inline uint16_t load_be16(const std::byte* p) {
  return static_cast<uint16_t>((u8(p) << 8) | u8(p + 1));
}
inline uint32_t load_be24(const std::byte* p) {
  return (uint32_t{u8(p)} << 16) | (uint32_t{u8(p + 1)} << 8) | u8(p + 2);
}
inline uint32_t load_be32(const std::byte* p) {
  return (uint32_t{u8(p)} << 24) | (uint32_t{u8(p + 1)} << 16) | (uint32_t{u8(p + 2)} << 8) |
         u8(p + 3);
}
inline uint64_t load_be64(const std::byte* p) {
  return (uint64_t{load_be32(p)} << 32) | load_be32(p + 4);
}
inline uint16_t load_le16(const std::byte* p) {
  return static_cast<uint16_t>(u8(p) | (u8(p + 1) << 8));
}
inline uint32_t load_le32(const std::byte* p) {
  return u8(p) | (uint32_t{u8(p + 1)} << 8) | (uint32_t{u8(p + 2)} << 16) |
         (uint32_t{u8(p + 3)} << 24);
}

inline void store_u8(std::byte* p, uint32_t v) {
  *p = static_cast<std::byte>(v & 0xFF);
}
inline void store_be16(std::byte* p, uint32_t v) {
  store_u8(p, v >> 8);
  store_u8(p + 1, v);
}
inline void store_be24(std::byte* p, uint32_t v) {
  store_u8(p, v >> 16);
  store_u8(p + 1, v >> 8);
  store_u8(p + 2, v);
}
inline void store_be32(std::byte* p, uint32_t v) {
  store_be16(p, v >> 16);
  store_be16(p + 2, v);
}
inline void store_be64(std::byte* p, uint64_t v) {
  store_be32(p, static_cast<uint32_t>(v >> 32));
  store_be32(p + 4, static_cast<uint32_t>(v));
}
inline void store_le16(std::byte* p, uint32_t v) {
  store_u8(p, v);
  store_u8(p + 1, v >> 8);
}
inline void store_le32(std::byte* p, uint32_t v) {
  store_le16(p, v);
  store_le16(p + 2, v >> 16);
}

}  // namespace bifrost::wire::detail
