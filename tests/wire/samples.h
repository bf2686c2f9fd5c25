#pragma once
// Header values for the codec tests: every supported opcode, with ordinary and extreme fields.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bifrost/wire/headers.h"
#include "bifrost/wire/ip_udp.h"

namespace bifrost::wire::test {

std::vector<Opcode> supported_opcodes();

enum class Fields : uint8_t { kTypical, kAllZero, kAllOnes };

// Headers for `op` with only the headers its chain carries set (others stay default, as after
// decoding) and bth.pad_count matching `payload_size`.
RoceHeaders sample_headers(Opcode op, Fields fields, std::size_t payload_size);

IpUdpInfo sample_ip(Fields fields = Fields::kTypical);

// Deterministic non-trivial bytes.
std::vector<std::byte> pattern(std::size_t size, uint8_t seed = 1);

}  // namespace bifrost::wire::test
