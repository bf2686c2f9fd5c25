#pragma once
// Virtuoso's own UD message: a receiver advertises the buffer of each MP RECV (which MP SEND
// fills it, where, how long, its rkey) so that a large MP SEND can be WRITEs into it; the
// sender acknowledges each advert, and the receiver repeats unacknowledged ones.
//
// Layout (36 bytes, network order):
//   0  u32 connection  the receiver's id for the connection (as every UD message starts)
//   4  u8  marker      0xA5 (a software ACK has its count 1..32 here, a control message 0)
//   5  u8  kind        1 advert, 2 advert ack
//   6  u16 zero
//   8  u64 sequence    the MP SEND (= MP RECV) number
//  16  u64 addr        advert: the buffer; ack: zero
//  24  u64 length      advert: its length; ack: zero
//  32  u32 rkey        advert: its region's rkey; ack: zero
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace bifrost::transport::virtuoso {

inline constexpr std::size_t kAdvertSize = 36;

struct Advert {
  uint32_t connection = 0;
  bool ack = false;
  uint64_t sequence = 0;
  uint64_t addr = 0;
  uint64_t length = 0;
  uint32_t rkey = 0;
  bool operator==(const Advert&) const = default;
};

std::array<std::byte, kAdvertSize> encode_advert(const Advert& advert);
// nullopt for any other length, marker or kind.
std::optional<Advert> decode_advert(std::span<const std::byte> bytes);

}  // namespace bifrost::transport::virtuoso
