#include "bifrost/net/flowctl/pfc.h"

#include <memory>

#include "bifrost/core/error.h"
#include "bifrost/net/channel.h"
#include "bifrost/net/egress_port.h"
#include "bifrost/net/switch.h"

namespace bifrost::net {

Bytes pfc_headroom_bound(const PfcHeadroomInputs& in) {
  if (in.rate.bits_per_second() <= 0 || in.propagation < Time::zero() ||
      in.ingress_latency < Time::zero() || in.jitter < Time::zero()) {
    throw Error("PFC headroom needs a positive rate and non-negative delays");
  }
  const Time reverse_frame =
      serialization_time(Bytes(uint64_t{in.max_reverse_frame_bytes} + in.overhead_bytes), in.rate);
  const Time pause_frame =
      serialization_time(Bytes(uint64_t{kPauseFrameBytes} + in.overhead_bytes), in.rate);
  const Time window =
      (in.propagation + in.jitter) * 2 + in.ingress_latency + reverse_frame + pause_frame;
  return Bytes(uint64_t{in.max_frame_bytes} * 2) + bytes_in(window, in.rate);
}

PfcPair install_pfc(world::Scheduler& scheduler, const PfcConfig& config, Switch& downstream,
                    uint32_t port, EgressPort& upstream) {
  EgressPort& reverse = downstream.egress(port);
  if (reverse.channel() == nullptr || upstream.channel() == nullptr ||
      reverse.channel()->destination().egress != &upstream) {
    throw Error(
        "install_pfc: port {} of switch '{}' and the upstream egress port must be the two ends "
        "of one link",
        port, downstream.name());
  }
  auto ingress = std::make_unique<PfcIngress>(scheduler, config, reverse);
  PfcIngress* raw = ingress.get();
  downstream.set_ingress_flow_control(port, std::move(ingress));  // throws if headroom won't fit
  return PfcPair{raw, install_pfc_gate(scheduler, upstream)};
}

PfcGate* install_pfc_gate(world::Scheduler& scheduler, EgressPort& upstream) {
  auto gate = std::make_unique<PfcGate>(scheduler);
  PfcGate* raw = gate.get();
  upstream.set_gate(std::move(gate));
  return raw;
}

}  // namespace bifrost::net
