#include "bifrost/real/bootstrap.h"

#include "bifrost/core/error.h"
#include "bifrost/real/json_fields.h"
#include "bifrost/real/offer_json.h"

namespace bifrost::real {

nlohmann::json to_json(const PeerInfo& info) {
  nlohmann::json qps = nlohmann::json::array();
  for (const QpEndpointInfo& q : info.qps) qps.push_back({{"qpn", q.qpn}, {"psn", q.psn}});
  nlohmann::json offers = nlohmann::json::array();
  for (const transport::ConnectionOffer& o : info.offers) offers.push_back(to_json(o));
  nlohmann::json mp_offers = nlohmann::json::array();
  for (const transport::virtuoso::MpOffer& o : info.mp_offers) mp_offers.push_back(to_json(o));
  return {{"bifrost_version", info.version},
          {"ip", world::to_string(info.ip)},
          {"mtu", info.mtu},
          {"buffer_va", info.buffer_va},
          {"buffer_length", info.buffer_length},
          {"rkey", info.rkey},
          {"qps", qps},
          {"settings", info.settings},
          {"offers", offers},
          {"mp_offers", mp_offers}};
}

PeerInfo peer_info_from_json(const nlohmann::json& m) {
  try {
    PeerInfo info;
    info.version = integer_field<int>(m, "bifrost_version");
    if (info.version != kBootstrapVersion) return info;  // checked by the caller
    info.ip = world::parse_ipv4(m.at("ip").get<std::string>());
    info.mtu = integer_field<uint32_t>(m, "mtu");
    info.buffer_va = integer_field<uint64_t>(m, "buffer_va");
    info.buffer_length = integer_field<uint64_t>(m, "buffer_length");
    info.rkey = integer_field<uint32_t>(m, "rkey");
    for (const auto& q : m.at("qps")) {
      info.qps.push_back({integer_field<uint32_t>(q, "qpn"), integer_field<uint32_t>(q, "psn")});
    }
    info.settings = m.at("settings");
    for (const auto& o : m.at("offers")) info.offers.push_back(offer_from_json(o));
    for (const auto& o : m.at("mp_offers")) info.mp_offers.push_back(mp_offer_from_json(o));
    return info;
  } catch (const nlohmann::json::exception& e) {
    throw Error("the peer's connection info is malformed: {}", e.what());
  } catch (const Error& e) {
    throw Error("the peer's connection info is malformed: {}", e.what());
  }
}

namespace {

// The first reason `peer` cannot work with `mine`, or "".
std::string incompatibility(const PeerInfo& mine, const PeerInfo& peer) {
  if (peer.version != mine.version) {
    return fmt::format(
        "bootstrap protocol version {} here, {} at the peer: use the same "
        "bifrost build on both sides",
        mine.version, peer.version);
  }
  for (const auto& [key, value] : mine.settings.items()) {
    const auto it = peer.settings.find(key);
    const std::string theirs = it == peer.settings.end() ? "(unset)" : it->dump();
    if (it == peer.settings.end() || *it != value) {
      return fmt::format(
          "setting '{}' is {} here but {} at the peer: server and client must "
          "be given the same flags",
          key, value.dump(), theirs);
    }
  }
  if (peer.qps.size() != mine.qps.size()) {
    return fmt::format("{} QPs here, {} at the peer", mine.qps.size(), peer.qps.size());
  }
  for (const QpEndpointInfo& q : peer.qps) {
    if (q.qpn < 2 || q.qpn > 0xFFFFFF || q.psn > 0xFFFFFF) {
      return fmt::format("the peer announced QPN {} / PSN {}: not valid 24-bit values", q.qpn,
                         q.psn);
    }
  }
  if (peer.mtu != mine.mtu) return fmt::format("MTU {} here, {} at the peer", mine.mtu, peer.mtu);
  if (peer.offers.size() != mine.offers.size()) {
    return fmt::format("{} Bifröst connections here, {} at the peer", mine.offers.size(),
                       peer.offers.size());
  }
  for (size_t i = 0; i < mine.offers.size(); ++i) {
    const transport::ConnectionOffer& a = mine.offers[i];
    const transport::ConnectionOffer& b = peer.offers[i];
    if (a.reliability != b.reliability || a.qps.size() != b.qps.size() || a.mtu != b.mtu) {
      return fmt::format("Bifröst connection {}: {} here, {} at the peer", i, to_json(a).dump(),
                         to_json(b).dump());
    }
  }
  if (peer.mp_offers.size() != mine.mp_offers.size()) {
    return fmt::format("{} multi-path connections here, {} at the peer", mine.mp_offers.size(),
                       peer.mp_offers.size());
  }
  for (size_t i = 0; i < mine.mp_offers.size(); ++i) {
    const size_t here = mine.mp_offers[i].connection.qps.size();
    const size_t there = peer.mp_offers[i].connection.qps.size();
    if (here != there) {
      return fmt::format("multi-path connection {}: {} paths here, {} at the peer", i, here, there);
    }
  }
  return "";
}

}  // namespace

PeerInfo exchange_peer_info(ControlChannel& channel, const PeerInfo& mine, Time timeout) {
  channel.send(to_json(mine));
  const PeerInfo peer = peer_info_from_json(channel.receive(timeout));
  const std::string why = incompatibility(mine, peer);
  if (!why.empty()) {
    channel.send_error(why);
    throw Error("incompatible peer {}: {}", channel.peer_name(), why);
  }
  return peer;
}

}  // namespace bifrost::real
