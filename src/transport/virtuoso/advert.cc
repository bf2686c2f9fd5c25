#include "advert.h"

#include "bifrost/wire/byte_order.h"

namespace bifrost::transport::virtuoso {

namespace {
constexpr uint8_t kMarker = 0xA5;
constexpr uint8_t kAdvertKind = 1;
constexpr uint8_t kAckKind = 2;
}  // namespace

std::array<std::byte, kAdvertSize> encode_advert(const Advert& advert) {
  using namespace wire::detail;
  std::array<std::byte, kAdvertSize> out{};
  store_be32(&out[0], advert.connection);
  store_u8(&out[4], kMarker);
  store_u8(&out[5], advert.ack ? kAckKind : kAdvertKind);
  store_be64(&out[8], advert.sequence);
  if (!advert.ack) {
    store_be64(&out[16], advert.addr);
    store_be64(&out[24], advert.length);
    store_be32(&out[32], advert.rkey);
  }
  return out;
}

std::optional<Advert> decode_advert(std::span<const std::byte> bytes) {
  using namespace wire::detail;
  if (bytes.size() != kAdvertSize || u8(&bytes[4]) != kMarker) return std::nullopt;
  const uint8_t kind = u8(&bytes[5]);
  if ((kind != kAdvertKind && kind != kAckKind) || load_be16(&bytes[6]) != 0) return std::nullopt;
  Advert a;
  a.connection = load_be32(&bytes[0]);
  a.ack = kind == kAckKind;
  a.sequence = load_be64(&bytes[8]);
  a.addr = load_be64(&bytes[16]);
  a.length = load_be64(&bytes[24]);
  a.rkey = load_be32(&bytes[32]);
  if (a.ack && (a.addr != 0 || a.length != 0 || a.rkey != 0)) return std::nullopt;
  return a;
}

}  // namespace bifrost::transport::virtuoso
