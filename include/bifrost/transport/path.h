#pragma once
// A path of a connection: one data QP with its role. A connection owns a set of paths; what a
// path is for is its role, so a failover is a change of roles and several paths may be active
// at once. Bifröst runs one primary with pre-connected backups; RoGUE one primary with a
// shadow; a multipath connection several active paths.
#include <cstdint>
#include <optional>
#include <string_view>

#include "bifrost/rnic/queue_pair.h"

namespace bifrost::transport {

// primary: new WQEs go on it. backup: connected and ready to become the primary (Bifröst).
// shadow: connected and idle, takes over in the same turn when its active QP fails (RoGUE).
// active: one of several paths carrying data at once (multipath). reconnecting: given up and
// being resynchronised with the peer in the background. failed: given up for good.
enum class PathRole : uint8_t { primary, backup, shadow, active, reconnecting, failed };

std::string_view to_string(PathRole role);

struct Path {
  rnic::QueuePair* qp = nullptr;
  PathRole role = PathRole::backup;
  uint32_t first_psn = 0;    // the first PSN this side sends on it
  uint16_t source_port = 0;  // its RoCEv2 UDP source port: what ECMP hashes
  // The local address it sends from (GID index); unset: the endpoint's. Virtuoso's path i is
  // a (local alias, peer alias) pair, which its recovery keeps.
  std::optional<uint8_t> gid_index;
};

}  // namespace bifrost::transport
