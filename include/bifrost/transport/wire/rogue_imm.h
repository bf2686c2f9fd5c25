#pragma once
// RoGUE's immediate data over UC (§3.4): the tag on a batch's last verb that asks the receiver
// library for an echo, and the echo itself, a zero-length WRITE_WITH_IMM from the receiver
// carrying T_response = t_rep - t_imm (its own delay, which the sender subtracts) and, our
// addition, which batch it answers, so that a later batch's echo arriving first shows a loss.
//
// Layout (the 32-bit immediate, as the verbs API hands it over):
//   bit  31      1: RoGUE's. Application immediates on a rogue_uc QP must have bit 31 clear
//                (the API refuses others), so the receiver tells the two apart by this bit.
//   bit  30      kind: 0 echo request (the tag), 1 echo
//   bits 29..22  batch sequence: the low 8 bits of the batch number
//   bits 21..0   echo: T_response in 10 ns units, rounded to nearest, saturating at
//                2^22 - 1 (41.94 ms); a request: zero
// A request with any of bits 21..0 set is not one of ours to answer: decode refuses it.
//
// When the application's own immediate falls on a batch's last verb, the application's value
// is carried unchanged on that verb and the tag goes on a zero-length WRITE_WITH_IMM posted
// right after it (one packet more per such batch; nothing of the application's is lost).
// Both ends keep receives posted for these zero-length WRITE_WITH_IMMs, as UC needs a receive
// WQE for every immediate.
#include <cstdint>

#include "bifrost/core/time.h"
#include "bifrost/wire/result.h"

namespace bifrost::transport {

inline constexpr uint32_t kRogueImmFlag = uint32_t{1} << 31;
inline constexpr uint32_t kRogueImmEchoKind = uint32_t{1} << 30;
inline constexpr unsigned kRogueBatchSequenceBits = 8;
inline constexpr unsigned kRogueBatchSequenceShift = 22;
inline constexpr unsigned kRogueResponseBits = 22;
inline constexpr uint32_t kRogueResponseMax = (uint32_t{1} << kRogueResponseBits) - 1;
inline constexpr Time kRogueResponseUnit = Time::ns(10);
// The longest T_response an echo can say exactly; longer ones are sent as this.
inline constexpr Time kRogueResponseCeiling = kRogueResponseUnit * kRogueResponseMax;

enum class RogueImmKind : uint8_t { echo_request, echo };

struct RogueImm {
  RogueImmKind kind = RogueImmKind::echo_request;
  uint8_t batch = 0;  // low 8 bits of the batch number
  Time t_response;    // echo only: a multiple of 10 ns, at most kRogueResponseCeiling

  friend bool operator==(const RogueImm&, const RogueImm&) = default;
};

// Bit 31: the immediate is RoGUE's, not the application's.
constexpr bool is_rogue_imm(uint32_t imm) {
  return (imm & kRogueImmFlag) != 0;
}

uint32_t encode_echo_request(uint8_t batch);
// T_response rounded to the nearest 10 ns; negative as zero; above the ceiling as the ceiling.
uint32_t encode_echo(uint8_t batch, Time t_response);
// Either kind from its fields (an echo's t_response rounded and saturated as above).
uint32_t encode_rogue_imm(const RogueImm& imm);
// kFieldOutOfRange for an application immediate (bit 31 clear) or a request with any of bits
// 21..0 set. Whatever decodes re-encodes to the same 32 bits.
wire::Result<RogueImm> decode_rogue_imm(uint32_t imm);

}  // namespace bifrost::transport
