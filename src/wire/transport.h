#pragma once
// Shared by codec.cc and frame.cc: the transport part of an encode, before the ICRC.
#include <cstddef>
#include <span>

#include "bifrost/wire/headers.h"
#include "bifrost/wire/ip_udp.h"
#include "bifrost/wire/result.h"

namespace bifrost::wire::detail {

// The largest UDP payload an IPv4 datagram can carry.
inline constexpr std::size_t kMaxUdpPayload = 0xFFFF - kIpUdpHeaderSize;

// Writes BTH through pad into `out` and returns that size; checks that `out` also has room for
// the ICRC that follows.
Result<std::size_t> write_transport(const RoceHeaders& headers, std::span<const std::byte> payload,
                                    std::span<std::byte> out);

// The headers only (BTH through the last extension header) of a packet whose payload has
// `payload_size` bytes, with the same checks as write_transport except room: `out` needs only
// the headers. Returns their size.
Result<std::size_t> write_headers(const RoceHeaders& headers, std::size_t payload_size,
                                  std::span<std::byte> out);

}  // namespace bifrost::wire::detail
