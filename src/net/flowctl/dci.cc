#include "bifrost/net/flowctl/dci.h"

#include <memory>

#include "bifrost/core/error.h"
#include "bifrost/net/channel.h"
#include "bifrost/net/egress_port.h"
#include "bifrost/net/flowctl/pfc.h"
#include "bifrost/net/switch.h"

namespace bifrost::net {

DciPair install_dci(world::Scheduler& scheduler, const DciConfig& config, Switch& downstream,
                    uint32_t port, EgressPort& upstream) {
  EgressPort& reverse = downstream.egress(port);
  if (reverse.channel() == nullptr || upstream.channel() == nullptr ||
      reverse.channel()->destination().egress != &upstream) {
    throw Error(
        "install_dci: port {} of switch '{}' and the upstream egress port must be the two ends "
        "of one link",
        port, downstream.name());
  }
  const Channel& forward = *upstream.channel();
  const DciLinkParams link{.rate = forward.rate(),
                           .propagation = forward.propagation(),
                           .ingress_latency = downstream.processing_latency(),
                           .max_frame_bytes = config.max_frame_bytes,
                           .overhead_bytes = forward.overhead_bytes(),
                           .jitter = forward.jitter()};
  auto ingress = std::make_unique<DciIngress>(scheduler, config, link, reverse);
  DciIngress* raw = ingress.get();
  downstream.set_ingress_flow_control(port, std::move(ingress));  // throws if H won't fit
  return DciPair{raw, install_pfc_gate(scheduler, upstream)};
}

}  // namespace bifrost::net
