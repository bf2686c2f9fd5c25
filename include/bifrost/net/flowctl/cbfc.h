#pragma once
// InfiniBand-style credit-based flow control on a link: CbfcIngress (cbfc_ingress.h) on the
// downstream node's port advertises credits, CbfcGate (cbfc_gate.h) on the upstream egress
// obeys them.
#include <cstdint>

#include "bifrost/net/flowctl/cbfc_config.h"
#include "bifrost/net/flowctl/cbfc_gate.h"
#include "bifrost/net/flowctl/cbfc_ingress.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::net {

class EgressPort;
class Switch;

struct CbfcPair {
  CbfcIngress* ingress = nullptr;  // owned by the downstream switch
  CbfcGate* gate = nullptr;        // owned by the upstream egress port
};

// CBFC for the direction `upstream` -> (`downstream`, `port`). Throws Error if they are not the
// two ends of one link, the configuration is bad, or the buffer cannot hold the credits.
CbfcPair install_cbfc(world::Scheduler& scheduler, const CbfcConfig& config, Switch& downstream,
                      uint32_t port, EgressPort& upstream);

}  // namespace bifrost::net
