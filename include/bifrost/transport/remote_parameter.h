#pragma once
// Remote parameters: values one side of a connection sets on its peer's side, carried in-band by
// parameter_set / parameter_ack control messages (wire/control_message.h) and applied by the
// peer only if its TransportConfig stays valid (docs/transport.md "Remote parameters").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bifrost/transport/config.h"

namespace bifrost::transport {

// The wire ids (u16) of what may be set, and which TransportConfig field of the peer each sets.
enum class RemoteParameter : uint16_t {
  ack_every_wqes = 1,   // the peer's receiver ACKs after this many WQEs (1..32)
  ack_every_bytes = 2,  // ... or this many bytes (at least 1)
  ack_timer_ns = 3,     // ... and at the latest this many nanoseconds after the first (positive)
  max_chunk = 4,        // the peer's largest WRITE chunk in bytes (a multiple of its unit_size)
};

// How a request ended. applied and refused travel in the ack (wire values 1 and 2); timed_out is
// this side's verdict when no ack came, and never goes on the wire.
enum class ParameterStatus : uint8_t { applied = 1, refused = 2, timed_out = 3 };

bool is_remote_parameter(uint16_t id);
std::string_view to_string(RemoteParameter parameter);
std::string_view to_string(ParameterStatus status);

// Sets `parameter` of `config` to `value` if the result passes TransportConfig::validate() (and
// the value fits the field); returns why not otherwise, leaving `config` as it was.
std::optional<std::string> apply_remote_parameter(TransportConfig& config,
                                                  RemoteParameter parameter, uint64_t value);

}  // namespace bifrost::transport
