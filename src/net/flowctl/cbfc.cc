#include "bifrost/net/flowctl/cbfc.h"

#include <memory>

#include "bifrost/core/error.h"
#include "bifrost/net/channel.h"
#include "bifrost/net/egress_port.h"
#include "bifrost/net/switch.h"

namespace bifrost::net {

CbfcPair install_cbfc(world::Scheduler& scheduler, const CbfcConfig& config, Switch& downstream,
                      uint32_t port, EgressPort& upstream) {
  EgressPort& reverse = downstream.egress(port);
  if (reverse.channel() == nullptr || upstream.channel() == nullptr ||
      reverse.channel()->destination().egress != &upstream) {
    throw Error(
        "install_cbfc: port {} of switch '{}' and the upstream egress port must be the two ends "
        "of one link",
        port, downstream.name());
  }
  auto gate = std::make_unique<CbfcGate>(config);
  auto ingress = std::make_unique<CbfcIngress>(scheduler, config, reverse);
  CbfcPair pair{ingress.get(), gate.get()};
  downstream.set_ingress_flow_control(port, std::move(ingress));  // throws if the buffer won't fit
  upstream.set_gate(std::move(gate));
  return pair;
}

}  // namespace bifrost::net
