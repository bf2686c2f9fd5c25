// Fuzz target: arbitrary bytes as RoGUE's UC immediates (every 4 bytes one immediate, in network
// order as ImmDt carries it). A peer controls them: decoding must never crash, and whatever
// decodes must re-encode to the same 32 bits.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "bifrost/transport/wire/rogue_imm.h"

namespace {

using namespace bifrost::transport;

void require(bool condition) {
  if (!condition) std::abort();
}

void check(uint32_t imm) {
  const auto decoded = decode_rogue_imm(imm);
  if (!decoded) {
    // Only application immediates and requests with stray low bits are refused.
    require(!is_rogue_imm(imm) || (imm & kRogueImmEchoKind) == 0);
    return;
  }
  require(is_rogue_imm(imm));
  require(encode_rogue_imm(decoded.value) == imm);
  require(decoded.value.t_response <= kRogueResponseCeiling);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  for (size_t i = 0; i + 4 <= size; i += 4) {
    check(uint32_t{data[i]} << 24 | uint32_t{data[i + 1]} << 16 | uint32_t{data[i + 2]} << 8 |
          data[i + 3]);
  }
  return 0;
}
