#pragma once
// SWING on one relay (docs/net.md, "SWING"): on its remote ingress the pause relay (ours) or PFC
// on the relay's own long-link queue (the Bifrost DCI paper's SWING, SwingTrigger), PFC with the
// relay's own XOFF / XON on its local ingress, and PFC gates on the two egresses that feed it.
// The DCI switch's port towards the relay runs ordinary PFC (install_pfc) with the same
// thresholds; a long link has a relay at each end, each installed with this.
#include "bifrost/net/flowctl/pause_relay.h"
#include "bifrost/net/flowctl/pfc.h"
#include "bifrost/net/flowctl/swing_config.h"
#include "bifrost/net/swing_relay.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::net {

struct SwingPoints {
  // On the relay's remote ingress: one of the two, by SwingConfig::trigger.
  PauseRelayIngress* relay = nullptr;  // kRelaySwitchPauses
  PfcIngress* threshold = nullptr;     // kOwnThreshold
  PfcIngress* local = nullptr;         // on the relay's local ingress
  PfcGate* remote_gate = nullptr;      // on the far relay's long-link egress
  PfcGate* local_gate = nullptr;       // on the DCI switch's egress towards the relay
};

// The long link as `relay` receives from it, for swing_relay_buffer.
SwingLinkParams swing_link_params(const SwingRelay& relay, const EgressPort& remote_upstream,
                                  uint32_t max_frame_bytes);
// The local side's headroom per lossless priority: config.local_headroom, else
// pfc_headroom_bound of the link between `relay` and its DCI switch.
Bytes swing_local_headroom(const SwingConfig& config, SwingRelay& relay);

// `local_upstream` is the DCI switch's egress on the link to the relay's local port,
// `remote_upstream` the far relay's egress on the long link. Throws Error if they are not the
// far ends of the relay's two links, the local link is slower than the long one (the relay
// would fall behind while its gate is open), the buffer is below swing_relay_buffer (with
// kOwnThreshold: below xoff + swing_relay_buffer), xon is above xoff, or the relay's buffer
// cannot hold what the configuration reserves.
SwingPoints install_swing_relay(world::Scheduler& scheduler, const SwingConfig& config,
                                SwingRelay& relay, EgressPort& local_upstream,
                                EgressPort& remote_upstream);

}  // namespace bifrost::net
