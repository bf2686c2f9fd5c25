#pragma once
// Priority flow control (IEEE 802.1Qbb): wiring both halves onto a link, and sizing headroom.
// PfcIngress (pfc_ingress.h) decides at the downstream ingress port; PfcGate (pfc_gate.h) obeys
// at the upstream egress port.
#include <cstdint>

#include "bifrost/core/rate.h"
#include "bifrost/net/flowctl/pfc_config.h"
#include "bifrost/net/flowctl/pfc_gate.h"
#include "bifrost/net/flowctl/pfc_ingress.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::net {

class EgressPort;
class Switch;

// The headroom per (port, lossless priority) that guarantees no kHeadroomExceeded drop, in
// frame bytes (docs/net.md derives it):
//   2 x max_frame + bytes_in(2 x (propagation + jitter) + ingress_latency + T(reverse frame)
//                            + T(pause))
// where T(x) is the wire time of x at the link rate (frame + overhead bytes) and bytes_in
// counts the bytes the rate carries in that time. Pauses for several priorities merge into one
// frame, so the bound holds for any number of lossless priorities.
struct PfcHeadroomInputs {
  Rate rate{};
  Time propagation{};
  Time ingress_latency{};                // the downstream switch's processing latency
  uint32_t max_frame_bytes = 0;          // largest data frame upstream -> downstream
  uint32_t max_reverse_frame_bytes = 0;  // largest frame downstream -> upstream (data or control)
  uint32_t overhead_bytes = kDefaultFrameOverheadBytes;
  Time jitter{};  // fibre delay jitter per direction (LinkConfig::jitter): the pause can be late
                  // by it, and so can the last frames the upstream sent before it arrived
};
Bytes pfc_headroom_bound(const PfcHeadroomInputs& in);

struct PfcPair {
  PfcIngress* ingress = nullptr;  // owned by the downstream switch
  PfcGate* gate = nullptr;        // owned by the upstream egress port
};

// PFC for the direction `upstream` -> (`downstream`, `port`): installs the ingress half on the
// switch port and a gate on the upstream egress (the other end of the same link). Throws Error
// if they are not the two ends of one link or the buffer cannot hold the headroom.
PfcPair install_pfc(world::Scheduler& scheduler, const PfcConfig& config, Switch& downstream,
                    uint32_t port, EgressPort& upstream);
// Only the obeying half, for an egress whose far end is not a buffering node.
PfcGate* install_pfc_gate(world::Scheduler& scheduler, EgressPort& upstream);

}  // namespace bifrost::net
