#include "bifrost/real/gid_table.h"

#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "bifrost/core/error.h"

namespace bifrost::real {

namespace {

// IPv4 20 + UDP 8 + BTH 12 + the largest extension chain bifrost puts before a full payload
// (RETH 16, ImmDt 4, the SR extension) + ICRC 4, rounded up generously.
constexpr uint32_t kRoceOverhead = 128;

uint32_t interface_mtu(const char* name) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 1500;
  ifreq request{};
  std::strncpy(request.ifr_name, name, IFNAMSIZ - 1);
  const int rc = ::ioctl(fd, SIOCGIFMTU, &request);
  ::close(fd);
  return rc == 0 ? static_cast<uint32_t>(request.ifr_mtu) : 1500;
}

bool is_loopback(world::Ipv4 ip) {
  return (ip.value >> 24) == 127;
}

}  // namespace

std::vector<GidEntry> interface_gid_table() {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) {
    throw Error("GID table: getifaddrs failed: {}", std::strerror(errno));
  }
  std::vector<GidEntry> table;
  for (const ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    if ((a->ifa_flags & IFF_UP) == 0) continue;
    const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    table.push_back(GidEntry{.ip = world::Ipv4{ntohl(in->sin_addr.s_addr)},
                             .interface = a->ifa_name,
                             .ifindex = ::if_nametoindex(a->ifa_name),
                             .interface_mtu = interface_mtu(a->ifa_name)});
  }
  ::freeifaddrs(list);
  std::stable_partition(table.begin(), table.end(),
                        [](const GidEntry& e) { return !is_loopback(e.ip); });
  return table;
}

std::vector<GidEntry> gid_table_of(const std::vector<world::Ipv4>& addresses) {
  const std::vector<GidEntry> here = interface_gid_table();
  std::vector<GidEntry> table;
  for (const world::Ipv4 ip : addresses) {
    const auto found =
        std::find_if(here.begin(), here.end(), [&](const GidEntry& e) { return e.ip == ip; });
    table.push_back(found != here.end()
                        ? *found
                        : GidEntry{.ip = ip, .interface = "", .ifindex = 0, .interface_mtu = 1500});
  }
  return table;
}

std::vector<world::Ipv4> multipath_gids(world::Ipv4 local, uint32_t aliases) {
  std::vector<world::Ipv4> gids = {local};
  std::string seen;
  for (const GidEntry& e : interface_gid_table()) {
    if (e.ip == local || is_loopback(e.ip)) continue;
    if (gids.size() <= aliases) gids.push_back(e.ip);
    seen += (seen.empty() ? "" : ", ") + world::to_string(e.ip);
  }
  if (gids.size() <= aliases) {
    throw Error(
        "{} paths need {} addresses besides {} on this host's interfaces; found {} ({}): add IP "
        "aliases (scripts/testbed.sh --paths {})",
        aliases, aliases, world::to_string(local), gids.size() - 1, seen.empty() ? "none" : seen,
        aliases);
  }
  return gids;
}

Gid ipv4_mapped_gid(world::Ipv4 ip) {
  Gid gid{};
  gid[10] = 0xFF;
  gid[11] = 0xFF;
  for (int i = 0; i < 4; ++i) gid[12 + i] = static_cast<uint8_t>(ip.value >> (24 - 8 * i));
  return gid;
}

std::optional<world::Ipv4> ipv4_of_gid(const Gid& gid) {
  const bool mapped =
      std::all_of(gid.begin(), gid.begin() + 10, [](uint8_t b) { return b == 0; }) &&
      gid[10] == 0xFF && gid[11] == 0xFF;
  if (!mapped) return std::nullopt;
  return world::Ipv4::of(gid[12], gid[13], gid[14], gid[15]);
}

uint32_t roce_mtu_for_interface(uint32_t interface_mtu) {
  uint32_t mtu = 4096;
  while (mtu > 256 && mtu + kRoceOverhead > interface_mtu) mtu /= 2;
  return mtu;
}

}  // namespace bifrost::real
