#include "bifrost/transport/wire/write_imm.h"

#include "bifrost/core/error.h"

namespace bifrost::transport {

WriteImmCodec::WriteImmCodec(ImmLayout layout) : offset_bits_(layout.chunk_offset_bits) {
  if (layout.message_id_bits == 0 || layout.chunk_offset_bits == 0 ||
      layout.message_id_bits + layout.chunk_offset_bits != 31) {
    throw Error(
        "immediate data layout: message id bits ({}) + chunk offset bits ({}) must be 31 "
        "(bit 31 is the hint), neither 0",
        layout.message_id_bits, layout.chunk_offset_bits);
  }
  id_mask_ = (1u << layout.message_id_bits) - 1;
  offset_mask_ = (1u << layout.chunk_offset_bits) - 1;
}

uint32_t WriteImmCodec::encode(const WriteImm& imm) const {
  if (imm.message_id > id_mask_ || imm.unit_offset > offset_mask_) {
    throw Error("WRITE immediate: message id {} or unit offset {} does not fit {}/{} bits",
                imm.message_id, imm.unit_offset, 31 - offset_bits_, offset_bits_);
  }
  return (imm.hint ? 1u << 31 : 0u) | (imm.message_id << offset_bits_) | imm.unit_offset;
}

WriteImm WriteImmCodec::decode(uint32_t imm) const {
  return WriteImm{.hint = (imm >> 31) != 0,
                  .message_id = (imm >> offset_bits_) & id_mask_,
                  .unit_offset = imm & offset_mask_};
}

}  // namespace bifrost::transport
