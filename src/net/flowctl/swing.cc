#include "bifrost/net/flowctl/swing.h"

#include <memory>

#include "bifrost/core/error.h"
#include "bifrost/net/channel.h"
#include "bifrost/net/egress_port.h"

namespace bifrost::net {
namespace {

void check_link(SwingRelay& relay, uint32_t port, const EgressPort& upstream, const char* what) {
  const Channel* reverse = relay.egress(port).channel();
  if (reverse == nullptr || upstream.channel() == nullptr ||
      reverse->destination().egress != &upstream) {
    throw Error(
        "install_swing_relay: the {} upstream egress and relay '{}' port {} must be the two ends "
        "of one link",
        what, relay.name(), port);
  }
}

}  // namespace

SwingLinkParams swing_link_params(const SwingRelay& relay, const EgressPort& remote_upstream,
                                  uint32_t max_frame_bytes) {
  const Channel& forward = *remote_upstream.channel();
  return SwingLinkParams{.rate = forward.rate(),
                         .propagation = forward.propagation(),
                         .jitter = forward.jitter(),
                         .relay_latency = relay.processing_latency(),
                         .max_frame_bytes = max_frame_bytes,
                         .overhead_bytes = forward.overhead_bytes()};
}

Bytes swing_local_headroom(const SwingConfig& config, SwingRelay& relay) {
  if (config.local_headroom) return *config.local_headroom;
  const Channel& local = *relay.egress(SwingRelay::kLocalPort).channel();
  return pfc_headroom_bound({.rate = local.rate(),
                             .propagation = local.propagation() + local.jitter(),
                             .ingress_latency = relay.processing_latency(),
                             .max_frame_bytes = config.max_frame_bytes,
                             .max_reverse_frame_bytes = config.max_frame_bytes,
                             .overhead_bytes = local.overhead_bytes()});
}

SwingPoints install_swing_relay(world::Scheduler& scheduler, const SwingConfig& config,
                                SwingRelay& relay, EgressPort& local_upstream,
                                EgressPort& remote_upstream) {
  check_link(relay, SwingRelay::kLocalPort, local_upstream, "local");
  check_link(relay, SwingRelay::kRemotePort, remote_upstream, "remote");
  if (local_upstream.channel()->rate() < remote_upstream.channel()->rate()) {
    throw Error(
        "SWING relay '{}': its link to the DCI switch ({} Gb/s) is slower than the long link "
        "({} Gb/s); the relayed pauses assume the relay drains at least as fast as it fills",
        relay.name(), local_upstream.channel()->rate().gbps(),
        remote_upstream.channel()->rate().gbps());
  }
  if (config.xon > config.xoff) {
    throw Error("SWING relay '{}': xon ({} bytes) must not exceed xoff ({} bytes)", relay.name(),
                config.xon.count(), config.xoff.count());
  }
  const bool own = config.trigger == SwingTrigger::kOwnThreshold;
  const Bytes rule =
      swing_relay_buffer(swing_link_params(relay, remote_upstream, config.max_frame_bytes));
  const Bytes needed = own ? config.xoff + rule : rule;
  const Bytes buffer = config.buffer.value_or(needed);
  if (buffer < needed) {
    throw Error(
        "SWING relay '{}': buffer of {} bytes per priority is below the {} bytes the {} cannot "
        "stop (swing_relay_buffer: about one round trip of the long link{})",
        relay.name(), buffer.count(), needed.count(), own ? "relay's own pause" : "relayed pause",
        own ? ", plus xoff" : "");
  }
  EgressPort& remote = relay.egress(SwingRelay::kRemotePort);
  EgressPort& local = relay.egress(SwingRelay::kLocalPort);
  SwingPoints points;
  if (own) {
    // The paper's SWING: PFC on the relay's own long-link queue, the rest of the buffer as
    // headroom for what is in flight when the pause arrives.
    PfcConfig long_side;
    long_side.lossless_priorities = config.priorities;
    long_side.xoff = Threshold::fixed(config.xoff);
    long_side.xon = config.xon;
    long_side.headroom = buffer - config.xoff;
    long_side.max_reverse_frame_bytes = config.max_frame_bytes;
    auto ingress = std::make_unique<PfcIngress>(scheduler, long_side, remote);
    points.threshold = ingress.get();
    relay.set_ingress_flow_control(SwingRelay::kRemotePort, std::move(ingress));
  } else {
    auto relay_ingress =
        std::make_unique<PauseRelayIngress>(config.priorities, buffer, remote, local);
    points.relay = relay_ingress.get();
    relay.set_ingress_flow_control(SwingRelay::kRemotePort, std::move(relay_ingress));
    relay.set_control_listener(SwingRelay::kLocalPort, points.relay);
  }
  points.remote_gate = install_pfc_gate(scheduler, remote_upstream);

  PfcConfig pfc;
  pfc.lossless_priorities = config.priorities;
  pfc.xoff = Threshold::fixed(config.xoff);
  pfc.xon = config.xon;
  pfc.headroom = swing_local_headroom(config, relay);
  pfc.max_reverse_frame_bytes = config.max_frame_bytes;
  auto local_ingress = std::make_unique<PfcIngress>(scheduler, pfc, local);
  points.local = local_ingress.get();
  relay.set_ingress_flow_control(SwingRelay::kLocalPort, std::move(local_ingress));
  points.local_gate = install_pfc_gate(scheduler, local_upstream);
  return points;
}

}  // namespace bifrost::net
