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

// A RoCEv2 CNP captured from a ConnectX-4 Lx NIC (published in Scapy's RoCE regression tests):
// 10.0.17.1 -> 10.0.18.1, DSCP 48 / ECT(0), IP id 0x718C, UDP source port 0 with a zero UDP
// checksum, CNP to QP 0x000118, ICRC 0x2A00FD82.
std::vector<std::byte> hardware_cnp_frame();

// Deterministic non-trivial bytes.
std::vector<std::byte> pattern(std::size_t size, uint8_t seed = 1);

}  // namespace bifrost::wire::test
