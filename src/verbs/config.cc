#include "config.h"

#include <cstdlib>
#include <string_view>

#include "bifrost/core/error.h"

namespace bifrost::verbs {

namespace {

const char* variable(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

bool parse_switch(const char* name, std::string_view text) {
  if (text == "1" || text == "on" || text == "yes") return true;
  if (text == "0" || text == "off" || text == "no") return false;
  throw Error("{}='{}': use 1 or 0", name, text);
}

int64_t parse_number(const char* name, const char* text, int64_t low, int64_t high) {
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (*end != '\0' || end == text || value < low || value > high) {
    throw Error("{}='{}': use a whole number from {} to {}", name, text, low, high);
  }
  return value;
}

LogLevel parse_log_level(std::string_view text) {
  if (text == "error") return LogLevel::error;
  if (text == "warn") return LogLevel::warn;
  if (text == "info") return LogLevel::info;
  if (text == "debug") return LogLevel::debug;
  throw Error("BIFROST_VERBS_LOG='{}': use error, warn, info or debug", text);
}

std::vector<world::Ipv4> parse_addresses(std::string_view text) {
  std::vector<world::Ipv4> out;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    out.push_back(world::parse_ipv4(std::string(text.substr(0, comma))));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
  }
  return out;
}

}  // namespace

VerbsConfig config_from_environment() {
  VerbsConfig c;
  if (const char* v = variable("BIFROST_VERBS_DEVICE")) c.device_name = v;
  if (const char* v = variable("BIFROST_VERBS_RECOVERY")) {
    c.recovery = rnic::recovery::parse_engine_kind(v);
  }
  if (const char* v = variable("BIFROST_VERBS_DCQCN"))
    c.dcqcn = parse_switch("BIFROST_VERBS_DCQCN", v);
  if (const char* v = variable("BIFROST_VERBS_GSO")) c.gso = parse_switch("BIFROST_VERBS_GSO", v);
  if (const char* v = variable("BIFROST_VERBS_UDP_SPORT")) {
    c.udp_sport = static_cast<uint16_t>(parse_number("BIFROST_VERBS_UDP_SPORT", v, 0, 65535));
  }
  if (const char* v = variable("BIFROST_VERBS_RTO_LOW_US")) {
    c.rto_low = Time::us(parse_number("BIFROST_VERBS_RTO_LOW_US", v, 1, 10'000'000));
  }
  if (const char* v = variable("BIFROST_VERBS_RTO_HIGH_US")) {
    c.rto_high = Time::us(parse_number("BIFROST_VERBS_RTO_HIGH_US", v, 1, 10'000'000));
  }
  if (const char* v = variable("BIFROST_VERBS_BDP_PACKETS")) {
    c.bdp_packets = static_cast<uint32_t>(parse_number("BIFROST_VERBS_BDP_PACKETS", v, 1, 65536));
  }
  if (const char* v = variable("BIFROST_VERBS_GIDS")) c.gids = parse_addresses(v);
  if (const char* v = variable("BIFROST_VERBS_LOG")) c.log_level = parse_log_level(v);
  return c;
}

}  // namespace bifrost::verbs
