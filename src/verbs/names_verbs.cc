// Names of enum values and IB rate conversions (ibv_rate_to_mult(3), ibv_wc_status_str(3)).
#include <iterator>

#include "guard.h"

namespace {

const char* name_in(const char* const* names, size_t count, int value, const char* otherwise) {
  return value >= 0 && static_cast<size_t>(value) < count ? names[value] : otherwise;
}

struct RateRow {
  ibv_rate rate;
  int mbps;
  int mult;  // multiple of 2.5 Gb/s, -1 where the rate is not one
};

constexpr RateRow kRates[] = {
    {IBV_RATE_2_5_GBPS, 2500, 1},      {IBV_RATE_5_GBPS, 5000, 2},
    {IBV_RATE_10_GBPS, 10000, 4},      {IBV_RATE_20_GBPS, 20000, 8},
    {IBV_RATE_30_GBPS, 30000, 12},     {IBV_RATE_40_GBPS, 40000, 16},
    {IBV_RATE_60_GBPS, 60000, 24},     {IBV_RATE_80_GBPS, 80000, 32},
    {IBV_RATE_120_GBPS, 120000, 48},   {IBV_RATE_14_GBPS, 14062, -1},
    {IBV_RATE_56_GBPS, 56250, -1},     {IBV_RATE_112_GBPS, 112500, -1},
    {IBV_RATE_168_GBPS, 168750, -1},   {IBV_RATE_25_GBPS, 25781, -1},
    {IBV_RATE_100_GBPS, 103125, -1},   {IBV_RATE_200_GBPS, 206250, -1},
    {IBV_RATE_300_GBPS, 309375, -1},   {IBV_RATE_28_GBPS, 28125, -1},
    {IBV_RATE_50_GBPS, 53125, -1},     {IBV_RATE_400_GBPS, 425000, -1},
    {IBV_RATE_600_GBPS, 637500, -1},   {IBV_RATE_800_GBPS, 850000, -1},
    {IBV_RATE_1200_GBPS, 1275000, -1},
};

template <typename Match>
const RateRow* find_rate(Match&& match) {
  for (const RateRow& r : kRates) {
    if (match(r)) return &r;
  }
  return nullptr;
}

}  // namespace

BIFROST_VERBS_API const char* ibv_wc_status_str(ibv_wc_status status) {
  static const char* const kNames[] = {"success",
                                       "local length error",
                                       "local QP operation error",
                                       "local EE context operation error",
                                       "local protection error",
                                       "work request flushed",
                                       "memory window bind error",
                                       "bad response",
                                       "local access error",
                                       "remote invalid request",
                                       "remote access error",
                                       "remote operation error",
                                       "transport retry count exceeded",
                                       "RNR retry count exceeded",
                                       "local RDD violation",
                                       "remote invalid RD request",
                                       "operation aborted",
                                       "invalid EE context number",
                                       "invalid EE context state",
                                       "fatal error",
                                       "response timeout",
                                       "general error",
                                       "tag matching error",
                                       "tag matching rendezvous error"};
  return name_in(kNames, std::size(kNames), status, "unknown status");
}

BIFROST_VERBS_API const char* ibv_node_type_str(ibv_node_type type) {
  static const char* const kNames[] = {
      "channel adapter (CA)", "switch", "router", "RNIC", "usNIC", "usNIC UDP", "unspecified"};
  return name_in(kNames, std::size(kNames), type - IBV_NODE_CA, "unknown node type");
}

BIFROST_VERBS_API const char* ibv_port_state_str(ibv_port_state state) {
  static const char* const kNames[] = {"PORT_NOP",   "PORT_DOWN",   "PORT_INIT",
                                       "PORT_ARMED", "PORT_ACTIVE", "PORT_ACTIVE_DEFER"};
  return name_in(kNames, std::size(kNames), state, "unknown port state");
}

BIFROST_VERBS_API const char* ibv_event_type_str(ibv_event_type event) {
  static const char* const kNames[] = {"CQ error",
                                       "QP fatal error",
                                       "QP request error",
                                       "QP access error",
                                       "communication established",
                                       "send queue drained",
                                       "path migrated",
                                       "path migration request error",
                                       "device fatal error",
                                       "port active",
                                       "port error",
                                       "LID change",
                                       "P_Key change",
                                       "SM change",
                                       "SRQ error",
                                       "SRQ limit reached",
                                       "last WQE reached",
                                       "client reregistration",
                                       "GID change",
                                       "WQ fatal error"};
  return name_in(kNames, std::size(kNames), event, "unknown event");
}

BIFROST_VERBS_API int ibv_rate_to_mult(ibv_rate rate) {
  const RateRow* row = find_rate([&](const RateRow& r) { return r.rate == rate; });
  return row != nullptr ? row->mult : -1;
}

BIFROST_VERBS_API ibv_rate mult_to_ibv_rate(int mult) {
  const RateRow* row = find_rate([&](const RateRow& r) { return mult > 0 && r.mult == mult; });
  return row != nullptr ? row->rate : IBV_RATE_MAX;
}

BIFROST_VERBS_API int ibv_rate_to_mbps(ibv_rate rate) {
  const RateRow* row = find_rate([&](const RateRow& r) { return r.rate == rate; });
  return row != nullptr ? row->mbps : -1;
}

BIFROST_VERBS_API ibv_rate mbps_to_ibv_rate(int mbps) {
  const RateRow* row = find_rate([&](const RateRow& r) { return r.mbps == mbps; });
  return row != nullptr ? row->rate : IBV_RATE_MAX;
}
