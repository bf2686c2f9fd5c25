#include "bifrost/sim/transport_pair.h"

#include <fmt/format.h>

namespace bifrost::sim {

TransportPair::TransportPair(const TransportPairConfig& config)
    : config_(config), wire_(std::make_unique<LossyWire>(kernel_, config.wire)) {
  build(a_, 0);
  build(b_, 1);
  if (!config.bifrost_connection) return;
  a_.endpoint->connect(*a_.connection, b_.endpoint->offer(*b_.connection));
  b_.endpoint->connect(*b_.connection, a_.endpoint->offer(*a_.connection));
}

void TransportPair::build(Side& side, int index) {
  rnic::DeviceConfig dc = config_.device;
  dc.name = fmt::format("nic{}", index);
  dc.gids = {world::Ipv4::of(10, 0, 0, static_cast<uint8_t>(index + 1))};
  side.device = std::make_unique<rnic::Device>(kernel_, dc);
  side.device->attach(wire_->end(index));
  transport::EndpointConfig ec = config_.endpoint;
  ec.seed = config_.endpoint.seed + static_cast<uint64_t>(index);
  side.endpoint = std::make_unique<transport::Endpoint>(*side.device, ec);
  if (config_.bifrost_connection) {
    side.connection = &side.endpoint->create_connection(config_.transport);
  }
  side.app = std::make_unique<rnic::TokenMemory>(kAppBase, config_.app_bytes);
  side.app_region = &side.device->reg_mr(side.endpoint->pd(), kAppBase, config_.app_bytes,
                                         rnic::Access::local_write, side.app.get());
}

}  // namespace bifrost::sim
