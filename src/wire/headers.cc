#include "bifrost/wire/headers.h"

namespace bifrost::wire {

// AETH syndrome layout (IBTA 9.7.5.1): bit 7 reserved, bits 6..5 the kind, bits 4..0 its value.
AckKind ack_kind(const Aeth& aeth) {
  switch (aeth.syndrome >> 5) {
    case 0b000:
      return AckKind::kAck;
    case 0b001:
      return AckKind::kRnrNak;
    case 0b011:
      return AckKind::kNak;
    default:
      return AckKind::kReserved;
  }
}

Aeth make_ack(uint32_t msn, uint8_t credits) {
  return Aeth{static_cast<uint8_t>(credits & 0x1F), msn & kPsnMask};
}

Aeth make_rnr_nak(uint32_t msn, uint8_t timer) {
  return Aeth{static_cast<uint8_t>(0x20 | (timer & 0x1F)), msn & kPsnMask};
}

Aeth make_nak(uint32_t msn, NakCode code) {
  return Aeth{static_cast<uint8_t>(0x60 | (static_cast<uint8_t>(code) & 0x1F)), msn & kPsnMask};
}

}  // namespace bifrost::wire
