#pragma once
// Configuration of priority flow control (IEEE 802.1Qbb), shared by its two halves.
#include <cstdint>
#include <optional>

#include "bifrost/core/bytes.h"
#include "bifrost/core/time.h"
#include "bifrost/net/flowctl/flow_control.h"

namespace bifrost::net {

struct PfcConfig {
  uint8_t lossless_priorities = 1u << 3;  // bit p: priority p is lossless
  // Pause when the priority's bytes from this port reach xoff (fixed, or alpha x free shared).
  Threshold xoff = Threshold::fixed(Bytes::KiB(64));
  // Resume when they fall to xon: the fixed value if set, else xoff - xon_offset (which follows
  // a dynamic xoff).
  std::optional<Bytes> xon = std::nullopt;
  Bytes xon_offset = Bytes(3000);
  Bytes headroom = Bytes::KiB(64);  // per lossless priority of the port; see pfc_headroom_bound
  uint16_t pause_quanta = 0xFFFF;
  // Zero: half the pause duration at the link rate. Refreshes arrive one refresh period apart
  // whatever the propagation, give or take the wait behind a frame in transmission and the
  // link's jitter, so the period plus those must be shorter than the pause (PfcIngress).
  Time refresh_period = Time::zero();
  // Largest frame this node sends towards the upstream (data or control): a pause waits for it.
  uint32_t max_reverse_frame_bytes = 1102;
};

}  // namespace bifrost::net
