#include "bifrost/net/frame.h"

#include <algorithm>

#include "bifrost/wire/frame.h"

namespace bifrost::net {

uint32_t data_frame_bytes(wire::Opcode opcode, uint32_t payload_bytes) {
  const auto bytes =
      static_cast<uint32_t>(wire::ethernet_frame_size(opcode, payload_bytes)) + kFcsBytes;
  return std::max(bytes, kMinFrameBytes);
}

ControlFrame make_pause(uint8_t priorities, uint16_t quanta) {
  ControlFrame frame;
  frame.kind = ControlKind::kPause;
  frame.class_enable = priorities;
  for (int p = 0; p < kPriorities; ++p) {
    if ((priorities >> p) & 1) frame.pause_quanta[p] = quanta;
  }
  return frame;
}

}  // namespace bifrost::net
