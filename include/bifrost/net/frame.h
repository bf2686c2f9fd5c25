#pragma once
// What travels on a simulated link: data frames (a RoCEv2 packet in an Ethernet frame) and
// control frames (PFC pause today; room for a CBFC credit update), and how many bytes each one
// occupies. The size rule is documented in docs/net.md and checked with literal numbers in
// tests/net/frame_test.cc.
#include <array>
#include <cstdint>

#include "bifrost/core/rate.h"
#include "bifrost/core/time.h"
#include "bifrost/wire/codec.h"
#include "bifrost/wire/opcode.h"
#include "bifrost/world/packet.h"

namespace bifrost::net {

inline constexpr int kPriorities = 8;
// Ethernet frame check sequence, after the ICRC.
inline constexpr uint32_t kFcsBytes = 4;
// The shortest Ethernet frame (header to FCS); shorter frames are padded.
inline constexpr uint32_t kMinFrameBytes = 64;
// Wire bytes a frame costs besides itself: preamble 7 + start delimiter 1 + inter-frame gap 12.
inline constexpr uint32_t kDefaultFrameOverheadBytes = 20;
// An 802.1Qbb PFC frame is a minimum-size MAC control frame.
inline constexpr uint32_t kPauseFrameBytes = kMinFrameBytes;
// One pause quantum is the time 512 bits take at the link rate.
inline constexpr uint32_t kPauseQuantumBits = 512;

// Ethernet frame bytes (header, IPv4, UDP, transport headers, payload, pad, ICRC, FCS; at
// least 64) of a RoCEv2 data packet. The per-frame wire overhead is added by the link.
uint32_t data_frame_bytes(wire::Opcode opcode, uint32_t payload_bytes);
inline uint32_t data_frame_bytes(const world::Packet& packet) {
  return data_frame_bytes(packet.roce.bth.opcode, packet.payload.length) +
         static_cast<uint32_t>(wire::sr_extension_size(packet.roce));
}

// Time `quanta` pause quanta last on a link of `rate`.
constexpr Time pause_duration(uint16_t quanta, Rate rate) {
  return serialization_time(Bytes(uint64_t{quanta} * (kPauseQuantumBits / 8)), rate);
}

// New kinds (a CBFC credit update) add an enumerator and their own fields below; receivers
// dispatch on `kind`. The whole frame must stay small: it is captured by value in the link's
// arrival event (see Channel).
enum class ControlKind : uint8_t { kPause, kCreditUpdate };

struct ControlFrame {
  ControlKind kind = ControlKind::kPause;
  // Bit p set: the entry for priority p is meaningful (802.1Qbb class-enable vector).
  uint8_t class_enable = 0;
  // Pause time per priority in quanta; zero means resume now.
  std::array<uint16_t, kPriorities> pause_quanta{};
  // kCreditUpdate (InfiniBand-style credits, flowctl/cbfc.h): the flow-control credit limit in
  // 64-byte blocks for the one priority in class_enable, modulo 2^(field bits).
  uint32_t credit_limit = 0;

  uint32_t frame_bytes() const { return kPauseFrameBytes; }
};

// A pause frame that sets every priority in `priorities` (bit mask) to `quanta`.
ControlFrame make_pause(uint8_t priorities, uint16_t quanta);

}  // namespace bifrost::net
