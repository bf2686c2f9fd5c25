#include "bifrost/world/address.h"

#include <fmt/format.h>

#include <charconv>

#include "bifrost/core/error.h"

namespace bifrost::world {

Ipv4 parse_ipv4(const std::string& text) {
  uint32_t value = 0;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (int part = 0; part < 4; ++part) {
    unsigned octet = 0;
    auto [next, ec] = std::from_chars(p, end, octet);
    if (ec != std::errc() || next == p || next - p > 3 || octet > 255) {
      throw Error("'{}' is not an IPv4 address (expected four numbers 0-255 like 10.0.0.1)", text);
    }
    value = (value << 8) | octet;
    p = next;
    if (part < 3) {
      if (p == end || *p != '.') {
        throw Error("'{}' is not an IPv4 address (expected four numbers 0-255 like 10.0.0.1)",
                    text);
      }
      ++p;
    }
  }
  if (p != end) {
    throw Error("'{}' is not an IPv4 address (trailing characters after the fourth number)", text);
  }
  return Ipv4{value};
}

std::string to_string(Ipv4 ip) {
  return fmt::format("{}.{}.{}.{}", ip.value >> 24, (ip.value >> 16) & 0xFF, (ip.value >> 8) & 0xFF,
                     ip.value & 0xFF);
}

std::string to_string(const Endpoint& ep) {
  return fmt::format("{}:{}", to_string(ep.ip), ep.port);
}

}  // namespace bifrost::world
