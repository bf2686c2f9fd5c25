#pragma once
// The verbs library's settings, read once from the environment (docs/verbs.md lists them).
#include <cstdint>
#include <string>
#include <vector>

#include "bifrost/rnic/recovery/engine.h"
#include "bifrost/world/address.h"

namespace bifrost::verbs {

enum class LogLevel : uint8_t { error, warn, info, debug };

struct VerbsConfig {
  std::string device_name = "bifrost0";                                   // BIFROST_VERBS_DEVICE
  rnic::recovery::EngineKind recovery = rnic::recovery::EngineKind::gbn;  // BIFROST_VERBS_RECOVERY
  bool dcqcn = false;                                                     // BIFROST_VERBS_DCQCN=1
  bool gso = false;                                                       // BIFROST_VERBS_GSO=1
  uint16_t udp_sport = 0;               // BIFROST_VERBS_UDP_SPORT (0: per QP)
  std::vector<world::Ipv4> gids;        // BIFROST_VERBS_GIDS (empty: interfaces)
  LogLevel log_level = LogLevel::warn;  // BIFROST_VERBS_LOG
};

// Throws Error naming the variable and the values it takes when one is malformed.
VerbsConfig config_from_environment();

}  // namespace bifrost::verbs
