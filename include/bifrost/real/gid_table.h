#pragma once
// The GID table of a soft RNIC in the real world: one entry per IPv4 address configured on the
// network namespace's interfaces, as RoCE v2 GIDs (IPv4-mapped IPv6, ::ffff:a.b.c.d). Loopback
// addresses come last, so index 0 is an address a peer in another namespace or machine can
// reach. The verbs library shows it to applications (ibv_query_gid); multi-address work
// (Virtuoso's paths) picks source addresses from it. docs/real.md, "The GID table".
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bifrost/world/address.h"

namespace bifrost::real {

struct GidEntry {
  world::Ipv4 ip;
  std::string interface;  // e.g. "veth0"
  uint32_t ifindex = 0;
  uint32_t interface_mtu = 0;  // bytes of IP packet the interface carries
};

using Gid = std::array<uint8_t, 16>;

// The interfaces' IPv4 addresses of this namespace, up interfaces only, non-loopback first (in
// interface order), then loopback. Throws Error if the interfaces cannot be listed.
std::vector<GidEntry> interface_gid_table();
// Entries for the given addresses only (a configured table), with interface and MTU looked
// up where the address is configured here (ifindex 0 and MTU 1500 where it is not).
std::vector<GidEntry> gid_table_of(const std::vector<world::Ipv4>& addresses);
// A multi-path device's GIDs (Virtuoso): `local` at index 0 (the host's own address, for the
// bootstrap and the UD control channel), then the first `aliases` other non-loopback addresses
// of interface_gid_table(), in its order, as GID indices 1..aliases. Throws Error naming what
// is missing when the namespace has fewer.
std::vector<world::Ipv4> multipath_gids(world::Ipv4 local, uint32_t aliases);

// ::ffff:a.b.c.d, and back (nullopt for a GID that is not IPv4-mapped).
Gid ipv4_mapped_gid(world::Ipv4 ip);
std::optional<world::Ipv4> ipv4_of_gid(const Gid& gid);

// The largest RoCE path MTU (256..4096, a power of two) whose packets, with IPv4, UDP, the
// RoCE headers bifrost may add and the ICRC, fit in an interface MTU; 256 below that.
uint32_t roce_mtu_for_interface(uint32_t interface_mtu);

}  // namespace bifrost::real
