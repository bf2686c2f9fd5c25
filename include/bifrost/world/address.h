#pragma once
// Network addresses as the transport sees them. A device owns a GID table of IPv4 addresses;
// each QP sends from one of them and from a UDP source port of its choice, which is how
// multi-path (one address per path) and reconnects (a new port moves the ECMP path) work in
// both worlds.
#include <compare>
#include <cstdint>
#include <string>

namespace bifrost::world {

struct Ipv4 {
  uint32_t value = 0;  // host order: 10.0.0.1 is 0x0A000001
  static constexpr Ipv4 of(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
    return Ipv4{(uint32_t{a} << 24) | (uint32_t{b} << 16) | (uint32_t{c} << 8) | d};
  }
  constexpr auto operator<=>(const Ipv4&) const = default;
};

// Parses dotted-quad text; throws bifrost::Error naming the bad text.
Ipv4 parse_ipv4(const std::string& text);
std::string to_string(Ipv4 ip);

struct Endpoint {
  Ipv4 ip;
  uint16_t port = 0;
  constexpr auto operator<=>(const Endpoint&) const = default;
};

std::string to_string(const Endpoint& ep);

}  // namespace bifrost::world
