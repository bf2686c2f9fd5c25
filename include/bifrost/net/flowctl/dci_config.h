#pragma once
// Configuration and buffer sizing of Bifrost DCI (downstream-driven, time-slotted flow control
// for long-haul links). docs/net.md, "Bifrost DCI", derives Delta and the bounds used here.
#include <cstdint>
#include <optional>

#include "bifrost/core/bytes.h"
#include "bifrost/core/rate.h"
#include "bifrost/core/time.h"
#include "bifrost/net/frame.h"

namespace bifrost::net {

// The link U -> D a DCI ingress controls, as the sizing sees it.
struct DciLinkParams {
  Rate rate{};                   // Rs
  Time propagation{};            // one way
  Time ingress_latency{};        // D's processing latency (the "internal delay")
  uint32_t max_frame_bytes = 0;  // largest data frame U -> D and D -> U (S)
  uint32_t overhead_bytes = kDefaultFrameOverheadBytes;
  Time jitter{};  // fibre delay jitter per direction (LinkConfig::jitter)
};

// Delta: the bytes U can have committed beyond the reach of the decision D takes now. Bytes on
// the wire or in D's pipeline (started up to propagation + jitter + latency + T(S) ago) plus
// bytes U sends before this slot's pause reaches it (the pause waits for a frame D is sending,
// T(S), then takes T(pause) + propagation + jitter):
//   Delta = bytes_in(2 x (propagation + jitter) + latency + T(pause) + 2 x T(S), Rs) + S
// (the last S: a frame U started just before the window closed). This is the paper's one BDP,
// 2 x Rs x D (section III-B), with what a packet model adds; see docs/net.md.
Bytes dci_delta(const DciLinkParams& link);
// How much later one pause can arrive than the one before it: the wait behind a frame in
// transmission plus the jitter. A full pause lasts T plus this, so back-to-back full pauses
// overlap and leave the upstream no gap to start a frame in.
Time dci_pause_guard(const DciLinkParams& link);
// The smallest buffer Theorem 1 allows: H = Delta + 2 x Rs x T, plus k x S of leak headroom
// when leak handling deducts every k slots (k = 0: off).
Bytes dci_min_buffer(const DciLinkParams& link, Time slot, uint32_t leak_every);

struct DciConfig {
  uint8_t priorities = 1u << 3;  // bit p: DCI controls priority p (lossless)
  Time slot = Time::us(10);      // T
  // Buffer per priority: H plus k x S leak headroom (the algorithm grants up to H); nullopt:
  // dci_min_buffer.
  std::optional<Bytes> buffer;
  uint32_t leak_every = 1;  // k: deduct over-granted bytes every k slots; 0: off
  // A full pause lasts T + dci_pause_guard (true) or T as in the paper (false: every later-
  // arriving pause of a chain leaves a gap in which the upstream starts a frame).
  bool guard_full_pauses = true;
  // Algorithm 1 exactly as printed (dci_rule.h: every DciDeviations flag off, the guard
  // included), so guard_full_pauses is not used.
  bool literal = false;
  uint32_t max_frame_bytes = 1102;  // S, for Delta and the k x S headroom
};

}  // namespace bifrost::net
