#include "bifrost/wire/codec.h"

#include <array>
#include <cstring>

#include "bifrost/wire/byte_order.h"
#include "transport.h"

namespace bifrost::wire {
namespace {

using detail::load_be16;
using detail::load_be24;
using detail::load_be32;
using detail::load_be64;
using detail::store_be16;
using detail::store_be24;
using detail::store_be32;
using detail::store_be64;

constexpr std::size_t chain_size(HeaderChain c) {
  return kBthSize + (c.deth ? kDethSize : 0) + (c.reth ? kRethSize : 0) + (c.aeth ? kAethSize : 0) +
         (c.immdt ? kImmDtSize : 0) + (c.cnp_reserved ? kCnpReservedSize : 0);
}

constexpr bool fits24(uint32_t v) {
  return v <= kPsnMask;
}

std::byte bit(bool set, unsigned shift) {
  return static_cast<std::byte>(set ? 1u << shift : 0u);
}
bool bit_of(std::byte b, unsigned shift) {
  return (static_cast<uint8_t>(b) >> shift) & 1u;
}

}  // namespace

std::size_t header_size(Opcode op) {
  return chain_size(header_chain(op));
}

std::size_t udp_payload_size(Opcode op, std::size_t payload_size) {
  return header_size(op) + payload_size + pad_for(payload_size) + kIcrcSize;
}

std::size_t sr_extension_size(const RoceHeaders& headers) {
  if (!headers.sr.present) return 0;
  if (!headers.sr.lean) return kSrExtensionSize;
  const Opcode op = headers.bth.opcode;
  if (op == Opcode::kRcAcknowledge) {
    return ack_kind(headers.aeth) == AckKind::kAck ? kLeanAackExtensionSize
                                                   : kLeanSackExtensionSize;
  }
  switch (op) {
    case Opcode::kRcWriteFirst:
    case Opcode::kRcWriteMiddle:
    case Opcode::kRcWriteLast:
    case Opcode::kRcWriteOnly:
      return kLeanWriteExtensionSize;
    case Opcode::kRcWriteLastImm:
    case Opcode::kRcWriteOnlyImm:
      return kLeanWriteImmExtensionSize;
    default:
      return kLeanSendExtensionSize;  // SEND packets, the only others that carry it
  }
}

std::size_t udp_payload_size(const RoceHeaders& headers, std::size_t payload_size) {
  return udp_payload_size(headers.bth.opcode, payload_size) +
         (headers.sr.present ? kSrExtensionSize : 0);
}

namespace detail {

Result<std::size_t> write_headers(const RoceHeaders& h, std::size_t payload_size,
                                  std::span<std::byte> out) {
  const Bth& bth = h.bth;
  if (!is_supported(static_cast<uint8_t>(bth.opcode))) {
    return fail<std::size_t>(WireError::kUnsupportedOpcode);
  }
  const HeaderChain chain = header_chain(bth.opcode);
  if (!chain.payload && payload_size != 0) return fail<std::size_t>(WireError::kPayloadNotAllowed);
  if (bth.version > 0x0F || !fits24(bth.dest_qp) || !fits24(bth.psn) ||
      (chain.deth && !fits24(h.deth.src_qp)) || (chain.aeth && !fits24(h.aeth.msn))) {
    return fail<std::size_t>(WireError::kFieldOutOfRange);
  }
  const uint8_t pad = pad_for(payload_size);
  const std::size_t headers = chain_size(chain) + (h.sr.present ? kSrExtensionSize : 0);
  // Checked piecewise so that a huge payload cannot wrap the sum.
  if (payload_size > kMaxUdpPayload) return fail<std::size_t>(WireError::kPacketTooLarge);
  if (headers + payload_size + pad + kIcrcSize > kMaxUdpPayload) {
    return fail<std::size_t>(WireError::kPacketTooLarge);
  }
  if (out.size() < headers) return fail<std::size_t>(WireError::kBufferTooSmall);

  std::byte* p = out.data();
  p[0] = static_cast<std::byte>(bth.opcode);
  p[1] = bit(bth.solicited, 7) | bit(bth.migration, 6) | static_cast<std::byte>(pad << 4) |
         static_cast<std::byte>(bth.version);
  store_be16(p + 2, bth.pkey);
  p[4] = bit(bth.fecn, 7) | bit(bth.becn, 6);
  store_be24(p + 5, bth.dest_qp);
  p[8] = bit(bth.ack_request, 7) | bit(h.sr.present, kSrExtensionBit);
  store_be24(p + 9, bth.psn);
  p += kBthSize;
  if (h.sr.present) {
    store_be64(p, h.sr.address);
    store_be32(p + 8, h.sr.key);
    store_be32(p + 12, h.sr.length);
    store_be32(p + 16, h.sr.sequence);
    store_be32(p + 20, h.sr.offset);
    p += kSrExtensionSize;
  }
  if (chain.deth) {
    store_be32(p, h.deth.qkey);
    p[4] = std::byte{0};
    store_be24(p + 5, h.deth.src_qp);
    p += kDethSize;
  }
  if (chain.reth) {
    store_be64(p, h.reth.virtual_address);
    store_be32(p + 8, h.reth.rkey);
    store_be32(p + 12, h.reth.dma_length);
    p += kRethSize;
  }
  if (chain.aeth) {
    p[0] = static_cast<std::byte>(h.aeth.syndrome);
    store_be24(p + 1, h.aeth.msn);
    p += kAethSize;
  }
  if (chain.immdt) {
    store_be32(p, h.immediate);
    p += kImmDtSize;
  }
  if (chain.cnp_reserved) {
    std::memset(p, 0, kCnpReservedSize);
    p += kCnpReservedSize;
  }
  return {headers};
}

Result<std::size_t> write_transport(const RoceHeaders& h, std::span<const std::byte> payload,
                                    std::span<std::byte> out) {
  const auto headers = write_headers(h, payload.size(), out);
  if (!headers) return headers;
  const uint8_t pad = pad_for(payload.size());
  const std::size_t size = headers.value + payload.size() + pad;
  if (out.size() < size + kIcrcSize) return fail<std::size_t>(WireError::kBufferTooSmall);
  std::byte* p = out.data() + headers.value;
  if (!payload.empty()) std::memcpy(p, payload.data(), payload.size());
  std::memset(p + payload.size(), 0, pad);
  return {size};
}

}  // namespace detail

namespace {

// The ICRC of a UDP payload of `size` bytes whose transport is `transport` then `more`. It
// covers the outer headers, so they are built as the sender's stack will.
Result<uint32_t> icrc_for(const IpUdpInfo& ip, std::size_t size,
                          std::span<const std::byte> transport,
                          std::span<const std::span<const std::byte>> more = {}) {
  std::array<std::byte, kIpUdpHeaderSize> outer;
  const auto written = encode_ip_udp(ip, size, outer);
  if (!written) return fail<uint32_t>(written.error);
  const auto span = std::span<const std::byte>(outer);
  return {icrc_ipv4(span.first<kIpv4HeaderSize>(), span.subspan<kIpv4HeaderSize, kUdpHeaderSize>(),
                    transport, more)};
}

}  // namespace

Result<std::size_t> encode_udp_payload(const IpUdpInfo& ip, const RoceHeaders& headers,
                                       std::span<const std::byte> payload,
                                       std::span<std::byte> out) {
  const auto transport = detail::write_transport(headers, payload, out);
  if (!transport) return transport;
  const std::size_t size = transport.value + kIcrcSize;
  const auto icrc = icrc_for(ip, size, out.first(transport.value));
  if (!icrc) return fail<std::size_t>(icrc.error);
  store_icrc(icrc.value, out.subspan(transport.value).first<kIcrcSize>());
  return {size};
}

Result<GatherSizes> encode_udp_gather(const IpUdpInfo& ip, const RoceHeaders& headers,
                                      std::span<const std::byte> payload,
                                      std::span<std::byte> head_out,
                                      std::span<std::byte, kMaxGatherTail> tail_out) {
  const auto head = detail::write_headers(headers, payload.size(), head_out);
  if (!head) return fail<GatherSizes>(head.error);
  const uint8_t pad = pad_for(payload.size());
  std::memset(tail_out.data(), 0, pad);
  const std::size_t size = head.value + payload.size() + pad + kIcrcSize;
  const std::array<std::span<const std::byte>, 2> more{payload, tail_out.first(pad)};
  const auto icrc = icrc_for(ip, size, head_out.first(head.value), more);
  if (!icrc) return fail<GatherSizes>(icrc.error);
  store_icrc(icrc.value, tail_out.subspan(pad).first<kIcrcSize>());
  return {GatherSizes{.head = head.value, .tail = pad + kIcrcSize}};
}

Result<RoceView> decode_udp_payload(std::span<const std::byte> in) {
  using R = RoceView;
  if (in.size() < kBthSize + kIcrcSize) return fail<R>(WireError::kTruncated);
  const std::byte* p = in.data();
  const auto raw_opcode = static_cast<uint8_t>(p[0]);
  if (!is_supported(raw_opcode)) return fail<R>(WireError::kUnsupportedOpcode);
  if ((static_cast<uint8_t>(p[1]) & 0x0F) != 0) return fail<R>(WireError::kBadTransportVersion);
  RoceView view;
  Bth& bth = view.headers.bth;
  bth.opcode = static_cast<Opcode>(raw_opcode);
  const HeaderChain chain = header_chain(bth.opcode);
  const bool extended = bit_of(p[8], kSrExtensionBit);
  const std::size_t headers = chain_size(chain) + (extended ? kSrExtensionSize : 0);
  if (in.size() < headers + kIcrcSize) return fail<R>(WireError::kTruncated);
  if (in.size() % 4 != 0) return fail<R>(WireError::kMisaligned);

  bth.solicited = bit_of(p[1], 7);
  bth.migration = bit_of(p[1], 6);
  bth.pad_count = (static_cast<uint8_t>(p[1]) >> 4) & 0x3;
  bth.version = 0;
  bth.pkey = load_be16(p + 2);
  bth.fecn = bit_of(p[4], 7);
  bth.becn = bit_of(p[4], 6);
  bth.dest_qp = load_be24(p + 5);
  bth.ack_request = bit_of(p[8], 7);
  bth.psn = load_be24(p + 9);

  const std::size_t body = in.size() - headers - kIcrcSize;  // payload and pad
  if (!chain.payload && body != 0) return fail<R>(WireError::kPayloadNotAllowed);
  if (bth.pad_count > body) return fail<R>(WireError::kBadPad);

  p += kBthSize;
  if (extended) {
    view.headers.sr.present = true;
    view.headers.sr.address = load_be64(p);
    view.headers.sr.key = load_be32(p + 8);
    view.headers.sr.length = load_be32(p + 12);
    view.headers.sr.sequence = load_be32(p + 16);
    view.headers.sr.offset = load_be32(p + 20);
    p += kSrExtensionSize;
  }
  if (chain.deth) {
    view.headers.deth.qkey = load_be32(p);
    view.headers.deth.src_qp = load_be24(p + 5);
    p += kDethSize;
  }
  if (chain.reth) {
    view.headers.reth.virtual_address = load_be64(p);
    view.headers.reth.rkey = load_be32(p + 8);
    view.headers.reth.dma_length = load_be32(p + 12);
    p += kRethSize;
  }
  if (chain.aeth) {
    view.headers.aeth.syndrome = static_cast<uint8_t>(p[0]);
    view.headers.aeth.msn = load_be24(p + 1);
    p += kAethSize;
  }
  if (chain.immdt) {
    view.headers.immediate = load_be32(p);
    p += kImmDtSize;
  }
  // A CNP's reserved bytes carry nothing: chain_size already stepped over them.
  view.payload = in.subspan(headers, body - bth.pad_count);
  view.icrc = load_icrc(in.last<kIcrcSize>());
  return {view};
}

bool icrc_matches(const IpUdpInfo& ip, std::span<const std::byte> udp_payload) {
  if (udp_payload.size() < kBthSize + kIcrcSize) return false;
  std::array<std::byte, kIpUdpHeaderSize> outer;
  if (!encode_ip_udp(ip, udp_payload.size(), outer)) return false;
  const auto span = std::span<const std::byte>(outer);
  const uint32_t icrc =
      icrc_ipv4(span.first<kIpv4HeaderSize>(), span.subspan<kIpv4HeaderSize, kUdpHeaderSize>(),
                udp_payload.first(udp_payload.size() - kIcrcSize));
  return icrc == load_icrc(udp_payload.last<kIcrcSize>());
}

}  // namespace bifrost::wire
