#pragma once
// What a request or response opcode means to the NIC: which operation, where in its message,
// whether it carries immediate data. Table 38's regular layout makes this arithmetic.
#include <cstdint>

#include "bifrost/rnic/segmenter.h"
#include "bifrost/wire/opcode.h"

namespace bifrost::rnic {

enum class Operation : uint8_t { send, write, read_request, read_response, acknowledge, other };

struct PacketKind {
  Operation operation = Operation::other;
  PacketPosition position = PacketPosition::only;
  bool immediate = false;

  bool starts_message() const {
    return position == PacketPosition::first || position == PacketPosition::only;
  }
  bool ends_message() const {
    return position == PacketPosition::last || position == PacketPosition::only;
  }
};

constexpr PacketKind packet_kind(wire::Opcode opcode) {
  const auto raw = static_cast<uint8_t>(opcode);
  if (raw == 0x64 || raw == 0x65) return {Operation::send, PacketPosition::only, raw == 0x65};
  if ((raw & 0xE0) != 0x00 && (raw & 0xE0) != 0x20) return {};
  const uint8_t code = raw & 0x1F;
  constexpr PacketPosition kSendWrite[6] = {PacketPosition::first, PacketPosition::middle,
                                            PacketPosition::last,  PacketPosition::last,
                                            PacketPosition::only,  PacketPosition::only};
  if (code < 6) return {Operation::send, kSendWrite[code], code == 3 || code == 5};
  if (code < 12) return {Operation::write, kSendWrite[code - 6], code == 9 || code == 11};
  if ((raw & 0xE0) != 0x00) return {};  // READ and ACK exist only on RC
  if (code == 12) return {Operation::read_request, PacketPosition::only, false};
  constexpr PacketPosition kResponse[4] = {PacketPosition::first, PacketPosition::middle,
                                           PacketPosition::last, PacketPosition::only};
  if (code < 17) return {Operation::read_response, kResponse[code - 13], false};
  if (code == 17) return {Operation::acknowledge, PacketPosition::only, false};
  return {};
}

}  // namespace bifrost::rnic
