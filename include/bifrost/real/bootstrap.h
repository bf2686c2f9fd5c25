#pragma once
// What two peers exchange before RoCE traffic can flow (what rdma_cm carries): per QP its
// number and first PSN, the registered buffer (address, length, rkey), the GID, the MTU, and a
// protocol version so that incompatible builds refuse each other with a clear message. Peers
// that talk through the Bifröst transport also exchange one ConnectionOffer per connection.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "bifrost/real/control_channel.h"
#include "bifrost/transport/endpoint.h"
#include "bifrost/transport/virtuoso/mp_connection.h"
#include "bifrost/world/address.h"

namespace bifrost::real {

// 2: Bifröst connection offers. 3: per-QP addresses in offers, Virtuoso MP offers.
inline constexpr int kBootstrapVersion = 3;

struct QpEndpointInfo {
  uint32_t qpn = 0;
  uint32_t psn = 0;
};

struct PeerInfo {
  int version = kBootstrapVersion;
  world::Ipv4 ip;  // the GID RoCE packets come from and go to
  uint32_t mtu = 4096;
  uint64_t buffer_va = 0;
  uint64_t buffer_length = 0;
  uint32_t rkey = 0;
  std::vector<QpEndpointInfo> qps;
  // Bifröst transport connections, in creation order; empty for plain verbs.
  std::vector<transport::ConnectionOffer> offers;
  // Virtuoso multi-path connections, in creation order: each QP's (path's) own address.
  std::vector<transport::virtuoso::MpOffer> mp_offers;
  // Settings both sides must agree on (test, connection type, sizes...): compared key by key.
  nlohmann::json settings = nlohmann::json::object();
};

nlohmann::json to_json(const PeerInfo& info);
// Throws Error naming the field for a message that is not a valid PeerInfo.
PeerInfo peer_info_from_json(const nlohmann::json& message);

// Sends `mine`, receives the peer's within `timeout` and checks it: same version, same
// settings, as many QPs, QPNs and PSNs in 24 bits, the same MTU, as many connection offers
// with the same mode and QP count as ours, as many MP offers with as many paths. On a mismatch
// tells the peer why and throws Error naming both values. Both sides send before they receive, so
// each checks the other and the peer learns the reason from the error message it is sent.
PeerInfo exchange_peer_info(ControlChannel& channel, const PeerInfo& mine, Time timeout);

}  // namespace bifrost::real
