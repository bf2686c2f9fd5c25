#include "bifrost/transport/remote_parameter.h"

#include <fmt/format.h>

#include <limits>

#include "bifrost/core/error.h"

namespace bifrost::transport {

namespace {

constexpr uint64_t kMaxU32 = std::numeric_limits<uint32_t>::max();
// The largest nanosecond count a Time (64-bit picoseconds) holds.
constexpr uint64_t kMaxNanoseconds = uint64_t{std::numeric_limits<int64_t>::max()} / 1000;

// Writes `value` into the field `parameter` names; false if it does not fit the field's type.
bool store(TransportConfig& config, RemoteParameter parameter, uint64_t value) {
  switch (parameter) {
    case RemoteParameter::ack_every_wqes:
      config.ack_every_wqes = static_cast<uint32_t>(value);
      return value <= kMaxU32;
    case RemoteParameter::ack_every_bytes:
      config.ack_every_bytes = static_cast<uint32_t>(value);
      return value <= kMaxU32;
    case RemoteParameter::ack_timer_ns:
      if (value > kMaxNanoseconds) return false;
      config.ack_timer = Time::ns(static_cast<int64_t>(value));
      return true;
    case RemoteParameter::max_chunk:
      config.max_chunk = static_cast<uint32_t>(value);
      return value <= kMaxU32;
  }
  return false;
}

}  // namespace

bool is_remote_parameter(uint16_t id) {
  return id >= static_cast<uint16_t>(RemoteParameter::ack_every_wqes) &&
         id <= static_cast<uint16_t>(RemoteParameter::max_chunk);
}

std::string_view to_string(RemoteParameter parameter) {
  switch (parameter) {
    case RemoteParameter::ack_every_wqes:
      return "ack_every_wqes";
    case RemoteParameter::ack_every_bytes:
      return "ack_every_bytes";
    case RemoteParameter::ack_timer_ns:
      return "ack_timer_ns";
    case RemoteParameter::max_chunk:
      return "max_chunk";
  }
  return "unknown";
}

std::string_view to_string(ParameterStatus status) {
  switch (status) {
    case ParameterStatus::applied:
      return "applied";
    case ParameterStatus::refused:
      return "refused";
    case ParameterStatus::timed_out:
      return "timed_out";
  }
  return "unknown";
}

std::optional<std::string> apply_remote_parameter(TransportConfig& config,
                                                  RemoteParameter parameter, uint64_t value) {
  TransportConfig candidate = config;
  if (!store(candidate, parameter, value)) {
    return fmt::format("{} {} does not fit its field", to_string(parameter), value);
  }
  // The same rules as a configuration given at construction, so that no remote value can put a
  // connection where a local one could not.
  try {
    candidate.validate();
  } catch (const Error& e) {
    return std::string(e.what());
  }
  config = std::move(candidate);
  return std::nullopt;
}

}  // namespace bifrost::transport
