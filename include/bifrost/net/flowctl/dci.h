#pragma once
// Bifrost DCI on a link: the DciIngress (dci_ingress.h) on the downstream switch port and the
// unchanged PFC gate on the upstream egress.
#include <cstdint>

#include "bifrost/net/flowctl/dci_config.h"
#include "bifrost/net/flowctl/dci_ingress.h"
#include "bifrost/net/flowctl/pfc_gate.h"
#include "bifrost/world/scheduler.h"

namespace bifrost::net {

class EgressPort;
class Switch;

struct DciPair {
  DciIngress* ingress = nullptr;  // owned by the downstream switch
  PfcGate* gate = nullptr;        // owned by the upstream egress port
};

// DCI for the direction `upstream` -> (`downstream`, `port`). The link parameters come from
// the link and the switch. Throws Error if the two are not the ends of one link, the
// configuration breaks Theorem 1's preconditions, or the buffer cannot hold H.
DciPair install_dci(world::Scheduler& scheduler, const DciConfig& config, Switch& downstream,
                    uint32_t port, EgressPort& upstream);

}  // namespace bifrost::net
