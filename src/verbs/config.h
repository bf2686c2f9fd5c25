#pragma once
// The verbs library's settings, read once from the environment (docs/verbs.md lists them).
#include <cstdint>
#include <string>
#include <vector>

#include "bifrost/core/time.h"
#include "bifrost/rnic/recovery/engine.h"
#include "bifrost/world/address.h"

namespace bifrost::verbs {

enum class LogLevel : uint8_t { error, warn, info, debug };

struct VerbsConfig {
  std::string device_name = "bifrost0";                                   // BIFROST_VERBS_DEVICE
  rnic::recovery::EngineKind recovery = rnic::recovery::EngineKind::gbn;  // BIFROST_VERBS_RECOVERY
  // IRN/SRNIC/FaSR timeouts (BIFROST_VERBS_RTO_LOW_US, _RTO_HIGH_US) and every engine's
  // in-flight cap per QP (_BDP_PACKETS; go-back-N's as ConnectX-5's tx window). The IRN paper's
  // 100/320 us assume a 100 Gb/s fabric. Over sockets at 1-2 Gb/s one BDP of 128 packets of 4 KiB
  // takes about 3 ms to drain: with 320 us, or even 4 ms, every window timed out spuriously, the
  // resends piled onto the queue and the QP ran out of retries within seconds (docs/verbs.md,
  // "Recovery engines in the real world").
  Time rto_low = Time::ms(5);
  Time rto_high = Time::ms(20);
  uint32_t bdp_packets = 128;
  bool dcqcn = false;                   // BIFROST_VERBS_DCQCN=1
  bool gso = false;                     // BIFROST_VERBS_GSO=1
  uint16_t udp_sport = 0;               // BIFROST_VERBS_UDP_SPORT (0: per QP)
  std::vector<world::Ipv4> gids;        // BIFROST_VERBS_GIDS (empty: interfaces)
  LogLevel log_level = LogLevel::warn;  // BIFROST_VERBS_LOG
};

// Throws Error naming the variable and the values it takes when one is malformed.
VerbsConfig config_from_environment();

}  // namespace bifrost::verbs
