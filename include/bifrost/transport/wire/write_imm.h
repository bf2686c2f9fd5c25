#pragma once
// The immediate data of a WRITE chunk (WRITE_WITH_IMM): which message the chunk belongs to and
// where in it the chunk starts, so that the receiver can account for it without any header in
// the payload. Layout (config.h, ImmLayout): hint | message id | chunk offset in units.
#include <cstdint>

#include "bifrost/transport/config.h"

namespace bifrost::transport {

struct WriteImm {
  bool hint = false;        // the last WQE the sender's window allows: ACK at once
  uint32_t message_id = 0;  // the WRITE reliable number, modulo 2^message_id_bits
  uint32_t unit_offset = 0;
};

class WriteImmCodec {
 public:
  // Throws Error if the widths do not sum to 31 or either is 0.
  explicit WriteImmCodec(ImmLayout layout);

  // Throws Error if a field does not fit its width.
  uint32_t encode(const WriteImm& imm) const;
  WriteImm decode(uint32_t imm) const;

  uint32_t message_id_mask() const { return id_mask_; }
  uint32_t max_units() const { return offset_mask_ + 1; }

 private:
  uint8_t offset_bits_;
  uint32_t id_mask_;
  uint32_t offset_mask_;
};

}  // namespace bifrost::transport
