#pragma once
// Configuration and buffer sizing of SWING, the PFC relay for long-haul links (docs/net.md,
// "SWING"). A relay at each end of the long link passes the pauses the DCI switch behind it
// sends on over the long link, so the far relay stops when the DCI switch stops; the near
// relay's own buffer absorbs what the relayed pause cannot stop. Towards its own DCI switch a
// relay runs plain PFC with its own XOFF / XON on its buffer.
#include <cstdint>
#include <optional>

#include "bifrost/core/bytes.h"
#include "bifrost/core/rate.h"
#include "bifrost/core/time.h"
#include "bifrost/net/frame.h"

namespace bifrost::net {

// The long link between two relays, as the sizing sees it.
struct SwingLinkParams {
  Rate rate{};
  Time propagation{};  // one way
  Time jitter{};       // fibre delay jitter per direction (LinkConfig::jitter)
  Time relay_latency{};
  uint32_t max_frame_bytes = 0;  // S, both directions
  uint32_t overhead_bytes = kDefaultFrameOverheadBytes;
};

// SWING's rule for the relay buffer per lossless priority on the long-link side: the bytes the
// far relay can still send after the DCI switch paused this relay. The relayed pause waits for
// the frame on the reverse wire, T(S), crosses in T(pause) + propagation + jitter, the far relay
// finishes its frame on the wire, and that frame crosses back: PFC's headroom bound with the
// jitter added to each way,
//   2 S + bytes_in(2 (propagation + jitter) + latency + T(S) + T(pause), rate),
// about one round trip of bytes. It bounds the buffer at every instant, not per episode: the
// relay holds rate x (the time its local egress was closed within the last such window).
Bytes swing_relay_buffer(const SwingLinkParams& long_link);

// What makes the relay at the receiving end of the long link pause the far relay.
enum class SwingTrigger : uint8_t {
  // Ours (the default): the relay passes on every pause its DCI switch sends it; it has no
  // threshold of its own on the long-link side (PauseRelayIngress).
  kRelaySwitchPauses,
  // The Bifrost DCI paper's description (section VI-B: "relay device is configured with a
  // 287 MB buffer and 198 KB XON/XOFF"; section III-B: SWING's "flow control is still triggered
  // by queue length threshold"): the relay runs PFC on its own long-link queue, pausing the far
  // relay at xoff and resuming at xon, with the rest of `buffer` as headroom.
  kOwnThreshold,
};

struct SwingConfig {
  uint8_t priorities = 1u << 3;  // bit p: SWING protects priority p (lossless)
  SwingTrigger trigger = SwingTrigger::kRelaySwitchPauses;
  // Per lossless priority on the long-link side; nullopt: swing_relay_buffer (kOwnThreshold:
  // xoff + swing_relay_buffer, the rule then being the headroom beyond xoff).
  std::optional<Bytes> buffer;
  // The relay's own PFC thresholds on its local side (what its DCI switch sends it), and those
  // of the DCI switch's port towards the relay; with kOwnThreshold also the relay's thresholds
  // on its long-link queue. The paper's settings use 198 KB for both.
  Bytes xoff = Bytes(198'000);
  Bytes xon = Bytes(198'000);
  // Per lossless priority on the local side beyond xoff; nullopt: pfc_headroom_bound of the
  // local link.
  std::optional<Bytes> local_headroom;
  uint32_t max_frame_bytes = 1102;  // S, for the sizing
};

}  // namespace bifrost::net
