#include "bifrost/real/offer_json.h"

#include "bifrost/core/error.h"
#include "bifrost/real/json_fields.h"

namespace bifrost::real {

namespace {

const char* mode_name(transport::Reliability r) {
  return r == transport::Reliability::software_uc ? "software_uc" : "hardware_rc";
}

uint32_t u24(const nlohmann::json& j, const char* key, uint32_t min) {
  const auto v = integer_field<uint64_t>(j, key);
  if (v < min || v > 0xFF'FFFF) throw Error("{} {} is not a valid 24-bit value", key, v);
  return static_cast<uint32_t>(v);
}

}  // namespace

nlohmann::json to_json(const transport::ConnectionOffer& o) {
  nlohmann::json qps = nlohmann::json::array();
  for (const auto& q : o.qps) qps.push_back({{"qpn", q.qpn}, {"psn", q.first_psn}});
  nlohmann::json j = {{"ip", world::to_string(o.ip)},
                      {"ud_qpn", o.ud_qpn},
                      {"qkey", o.qkey},
                      {"connection_id", o.connection_id},
                      {"reliability", mode_name(o.reliability)},
                      {"mtu", o.mtu},
                      {"qps", qps}};
  if (!o.qp_addresses.empty()) {
    nlohmann::json addresses = nlohmann::json::array();
    for (const auto& a : o.qp_addresses) {
      addresses.push_back({{"ip", world::to_string(a.ip)}, {"gid_index", a.gid_index}});
    }
    j["qp_addresses"] = addresses;
  }
  return j;
}

transport::ConnectionOffer offer_from_json(const nlohmann::json& j) {
  try {
    transport::ConnectionOffer o;
    o.ip = world::parse_ipv4(j.at("ip").get<std::string>());
    o.ud_qpn = u24(j, "ud_qpn", 2);
    o.qkey = integer_field<uint32_t>(j, "qkey");
    o.connection_id = integer_field<uint32_t>(j, "connection_id");
    if (o.connection_id == 0) throw Error("connection_id 0 is not a connection");
    const auto mode = j.at("reliability").get<std::string>();
    if (mode == "software_uc") {
      o.reliability = transport::Reliability::software_uc;
    } else if (mode == "hardware_rc") {
      o.reliability = transport::Reliability::hardware_rc;
    } else {
      throw Error("unknown reliability '{}'", mode);
    }
    o.mtu = integer_field<uint32_t>(j, "mtu");
    for (const auto& q : j.at("qps")) {
      o.qps.push_back(
          transport::ConnectionOffer::Qp{.qpn = u24(q, "qpn", 2), .first_psn = u24(q, "psn", 0)});
    }
    if (o.qps.empty()) throw Error("the offer names no QP");
    if (const auto it = j.find("qp_addresses"); it != j.end()) {
      for (const auto& a : *it) {
        o.qp_addresses.push_back(transport::ConnectionOffer::QpAddress{
            .ip = world::parse_ipv4(a.at("ip").get<std::string>()),
            .gid_index = integer_field<uint8_t>(a, "gid_index")});
      }
      if (o.qp_addresses.size() != o.qps.size()) {
        throw Error("{} QP addresses for {} QPs", o.qp_addresses.size(), o.qps.size());
      }
    }
    return o;
  } catch (const nlohmann::json::exception& e) {
    throw Error("malformed connection offer: {}", e.what());
  } catch (const Error& e) {
    throw Error("malformed connection offer: {}", e.what());
  }
}

nlohmann::json to_json(const transport::virtuoso::MpOffer& o) {
  nlohmann::json j = to_json(o.connection);
  j["probe_addr"] = o.probe_target.addr;
  j["probe_rkey"] = o.probe_target.rkey;
  j["probe_bytes"] = o.probe_bytes;
  return j;
}

transport::virtuoso::MpOffer mp_offer_from_json(const nlohmann::json& j) {
  transport::virtuoso::MpOffer o;
  o.connection = offer_from_json(j);
  try {
    if (o.connection.qp_addresses.empty()) throw Error("no qp_addresses: one per path is needed");
    o.probe_target.addr = integer_field<uint64_t>(j, "probe_addr");
    o.probe_target.rkey = integer_field<uint32_t>(j, "probe_rkey");
    o.probe_bytes = integer_field<uint64_t>(j, "probe_bytes");
    return o;
  } catch (const nlohmann::json::exception& e) {
    throw Error("malformed multi-path offer: {}", e.what());
  } catch (const Error& e) {
    throw Error("malformed multi-path offer: {}", e.what());
  }
}

}  // namespace bifrost::real
