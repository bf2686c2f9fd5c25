#include "bifrost/transport/wire/rogue_imm.h"

namespace bifrost::transport {
namespace {

constexpr uint32_t kResponseMask = kRogueResponseMax;
constexpr uint32_t kSequenceMask = (uint32_t{1} << kRogueBatchSequenceBits) - 1;

uint32_t header(bool echo, uint8_t batch) {
  return kRogueImmFlag | (echo ? kRogueImmEchoKind : 0) |
         (uint32_t{batch} << kRogueBatchSequenceShift);
}

uint32_t response_units(Time t_response) {
  if (t_response <= Time::zero()) return 0;
  if (t_response >= kRogueResponseCeiling) return kRogueResponseMax;
  const int64_t unit = kRogueResponseUnit.picoseconds();
  return static_cast<uint32_t>((t_response.picoseconds() + unit / 2) / unit);
}

}  // namespace

uint32_t encode_echo_request(uint8_t batch) {
  return header(false, batch);
}

uint32_t encode_echo(uint8_t batch, Time t_response) {
  return header(true, batch) | response_units(t_response);
}

uint32_t encode_rogue_imm(const RogueImm& imm) {
  return imm.kind == RogueImmKind::echo ? encode_echo(imm.batch, imm.t_response)
                                        : encode_echo_request(imm.batch);
}

wire::Result<RogueImm> decode_rogue_imm(uint32_t imm) {
  const bool echo = (imm & kRogueImmEchoKind) != 0;
  const uint32_t low = imm & kResponseMask;
  if (!is_rogue_imm(imm) || (!echo && low != 0)) {
    return wire::fail<RogueImm>(wire::WireError::kFieldOutOfRange);
  }
  RogueImm out;
  out.kind = echo ? RogueImmKind::echo : RogueImmKind::echo_request;
  out.batch = static_cast<uint8_t>((imm >> kRogueBatchSequenceShift) & kSequenceMask);
  if (echo) out.t_response = kRogueResponseUnit * low;
  return wire::Result<RogueImm>{out};
}

}  // namespace bifrost::transport
